//! Differential test against the exact reference backend: every example of the catalog's
//! `data_movement` family, re-run with random layouts (dimension orders and padding with every
//! padding value) on the parameters and the result. The fast backend must give exactly the
//! reference's literal: the same bytes in the declared layout (padding included), NaN payloads and
//! signs of zero included (data movement moves bits).

use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::{Backend, Layout, Literal, Opcode, PaddingValue, Shape};

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

fn random_layout(rng: &mut Rng, dims: &[i64]) -> Layout {
    let mut m2m: Vec<i64> = (0..dims.len() as i64).collect();
    for i in (1..m2m.len()).rev() {
        m2m.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let layout = Layout::new(m2m);
    if rng.below(2) == 0 && !dims.is_empty() {
        let padded = dims.iter().map(|&d| d + rng.below(3) as i64).collect();
        let value = [
            PaddingValue::Zero,
            PaddingValue::One,
            PaddingValue::Lowest,
            PaddingValue::Highest,
        ][rng.below(4) as usize];
        layout.with_padding(padded, value)
    } else {
        layout
    }
}

/// Gives every array shape in `shape` a random layout.
fn relayout_shape(rng: &mut Rng, shape: &mut Shape) {
    match shape {
        Shape::Array(a) => a.layout = random_layout(rng, &a.dimensions),
        Shape::Tuple(t) => t.iter_mut().for_each(|s| relayout_shape(rng, s)),
        Shape::Token => {}
    }
}

fn relayout_literal(lit: &Literal, shape: &Shape) -> Literal {
    match (lit, shape) {
        (Literal::Array(a), Shape::Array(s)) => Literal::Array(a.relayout(s.layout.clone())),
        (Literal::Tuple(t), Shape::Tuple(s)) => Literal::Tuple(
            t.iter()
                .zip(s)
                .map(|(l, s)| relayout_literal(l, s))
                .collect(),
        ),
        (l, _) => l.clone(),
    }
}

#[test]
fn catalog_examples_agree_with_the_reference_under_random_layouts() {
    let catalog = Catalog::builtin().expect("catalog loads");
    let mut rng = Rng(0x5eed);
    let (mut runs, mut failures) = (0, Vec::new());
    for op in catalog.ops_of_family("data_movement") {
        for ex in &op.examples {
            let Ok(module) = parse_module(&ex.hlo) else {
                continue;
            };
            let Ok(args) = ex
                .inputs
                .iter()
                .map(|t| parse_literal(t))
                .collect::<Result<Vec<_>, _>>()
            else {
                continue;
            };
            for round in 0..6 {
                let mut m = module.clone();
                let entry = m.entry;
                let comp = &mut m.computations[entry];
                let mut params = Vec::new();
                let root = comp.root;
                for (i, instr) in comp.instructions.iter_mut().enumerate() {
                    if instr.opcode == Opcode::Parameter || i == root {
                        relayout_shape(&mut rng, &mut instr.shape);
                    }
                    if let (Opcode::Parameter, Some(k)) = (instr.opcode, instr.parameter_number) {
                        params.push((k as usize, instr.shape.clone()));
                    }
                }
                params.sort_by_key(|p| p.0);
                if params.len() != args.len() {
                    continue;
                }
                let args: Vec<Literal> = args
                    .iter()
                    .zip(&params)
                    .map(|(a, (_, s))| relayout_literal(a, s))
                    .collect();
                let want = match Reference.execute(&m, &args) {
                    Ok(v) => v,
                    Err(_) => continue, // e.g. an example that is an expected error
                };
                runs += 1;
                let fast = if round % 2 == 0 {
                    Fast::sequential()
                } else {
                    Fast::with_parallel_threshold(1)
                };
                match fast.execute(&m, &args) {
                    Ok(got) if got == want => {}
                    Ok(got) => failures.push(format!(
                        "{} / {} (round {round}): fast {got:?} reference {want:?}",
                        op.id, ex.name
                    )),
                    Err(e) => failures.push(format!("{} / {}: fast error {e}", op.id, ex.name)),
                }
            }
        }
    }
    eprintln!("{runs} runs of data-movement examples under random layouts");
    assert!(runs > 0, "no data-movement example ran");
    assert!(
        failures.is_empty(),
        "{} of {runs} runs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
