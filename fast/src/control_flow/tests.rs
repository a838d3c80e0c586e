//! Unit tests of the control-flow family's internals: which comparators take the key path, and
//! the interpreted path's merge sort.

use super::sort::{key_plan, merge_sort};
use conformance_spec::hlo::comparator::recognize;
use conformance_spec::hlo::parse_module;
use conformance_spec::ElementType;

#[test]
fn jax_comparators_take_the_key_path() {
    // What jnp.argsort(f32) emits: keys canonicalized, an s32 payload.
    let hlo = r#"
HloModule m
cmp {
  q2 = s32[] parameter(2)
  q3 = s32[] parameter(3)
  a = f32[] parameter(0)
  ne.2 = pred[] compare(a, a), direction=NE
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  eq.2 = pred[] compare(a, zero), direction=EQ
  s4 = f32[] select(eq.2, zero, a)
  s5 = f32[] select(ne.2, nan, s4)
  b = f32[] parameter(1)
  ne.3 = pred[] compare(b, b), direction=NE
  eq.3 = pred[] compare(b, zero), direction=EQ
  s6 = f32[] select(eq.3, zero, b)
  s7 = f32[] select(ne.3, nan, s6)
  ROOT lt = pred[] compare(s5, s7), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f32[4] parameter(0)
  i = s32[4] iota(), iota_dimension=0
  ROOT s = (f32[4], s32[4]) sort(x, i), dimensions={0}, is_stable=true, to_apply=cmp
}
"#;
    let m = parse_module(hlo).unwrap();
    let plan = key_plan(
        recognize(m.computation("cmp").unwrap()),
        &[ElementType::F32, ElementType::S32],
    )
    .expect("recognized");
    assert_eq!(plan.bits, 32);
    assert_eq!(plan.keys.len(), 1);
    assert_eq!(plan.keys[0].0, 0);
    // Complex keys have no order: the interpreted path.
    assert!(key_plan(
        recognize(m.computation("cmp").unwrap()),
        &[ElementType::C64]
    )
    .is_none());
}

#[test]
fn merge_sort_is_stable_and_survives_inconsistent_relations() {
    let keys = [
        3, 1, 2, 1, 3, 0, 2, 2, 1, 0, 5, 4, 3, 3, 1, 0, 9, 8, 1, 2, 3,
    ];
    let mut v: Vec<u32> = (0..keys.len() as u32).collect();
    let mut buf = Vec::new();
    let less = |a: u32, b: u32| Ok::<_, ()>(keys[a as usize] < keys[b as usize]);
    merge_sort(&mut v, &mut buf, &less).unwrap();
    let mut want: Vec<u32> = (0..keys.len() as u32).collect();
    want.sort_by_key(|&i| keys[i as usize]);
    assert_eq!(v, want);
    // "Always less" is no order at all: some permutation, no panic.
    let mut v: Vec<u32> = (0..100).collect();
    merge_sort(&mut v, &mut buf, &|_, _| Ok::<_, ()>(true)).unwrap();
    v.sort_unstable();
    assert_eq!(v, (0..100).collect::<Vec<u32>>());
    // Errors propagate.
    let mut v: Vec<u32> = (0..100).collect();
    assert_eq!(
        merge_sort(&mut v, &mut buf, &|_, _| Err::<bool, _>(7)),
        Err(7)
    );
}
