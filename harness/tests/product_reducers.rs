//! Product reducers in any order (seed 004, Reduce: "the reduction computation may be
//! re-associated"): `jnp.cumprod` as JAX lowers it (a `reduce-window` whose reducer multiplies,
//! padded by the window size minus one) agrees on `fast` for bf16, f16 and f32 on generated
//! inputs. Before the reference multiplied exactly and the harness allowed any order, fast's
//! order was 1 ULP off the reference's canonical one on many elements (issue 20).

use std::process::Command;

fn cumprod(ty: &str, n: usize) -> String {
    format!(
        "HloModule cumprod\n\nregion {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  \
         ROOT m = {ty}[] multiply(a, b)\n}}\n\nENTRY main {{\n  x = {ty}[{n}]{{0}} parameter(0)\n  \
         one = {ty}[] constant(1)\n  ROOT r = {ty}[{n}]{{0}} reduce-window(x, one), \
         window={{size={n} pad={p}_0}}, to_apply=region\n}}\n",
        p = n - 1
    )
}

#[test]
fn cumprod_agrees_in_any_order_of_its_products() {
    let dir = tempfile::tempdir().unwrap();
    for ty in ["bf16", "f16", "f32"] {
        let file = dir.path().join(format!("cumprod_{ty}.hlo"));
        std::fs::write(&file, cumprod(ty, 64)).unwrap();
        for seed in 1..=6 {
            let out = Command::new(env!("CARGO_BIN_EXE_conformance"))
                .arg("replay")
                .arg(&file)
                .args(["--seed", &seed.to_string(), "--backends", "reference,fast"])
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{ty} seed {seed}:\n{stdout}");
            assert!(stdout.contains("fast: Pass"), "{ty} seed {seed}:\n{stdout}");
        }
    }
}
