//! Every example of the contractions catalog family (spec/ops/contractions.yaml: the seed's
//! worked examples and hand-made ones) runs on the reference and gives the expected value
//! bit-exactly (the reference is exact: every sum rounded once).

mod common;

#[test]
fn every_contractions_example_is_bit_exact_on_the_reference() {
    common::catalog::assert_family_bit_exact("contractions");
}
