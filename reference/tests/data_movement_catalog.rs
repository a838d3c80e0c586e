//! Every example of the data-movement catalog family (spec/ops/data_movement.yaml: the seed's
//! worked examples and hand-made ones) runs on the reference and gives the expected value
//! bit-exactly (data movement moves bits: NaN payloads and signed zeros included).

mod common;

#[test]
fn every_data_movement_example_is_bit_exact_on_the_reference() {
    common::catalog::assert_family_bit_exact("data_movement");
}
