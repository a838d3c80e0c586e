//! End-to-end sweep throughput: cases per second (generation, the exact reference, the fast
//! backend, comparison), over every element-wise operation and element type, with operands of at
//! most 256 elements, on all CPUs. `cargo bench -p conformance --bench sweep`; criterion's
//! "elem/s" is cases per second.

use conformance::generate::GeneratorConfig;
use conformance::run::{run, Budget, RunOptions};
use conformance_spec::catalog::Catalog;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const CASES: u64 = 4000;

fn bench(c: &mut Criterion) {
    let catalog = Catalog::builtin().expect("built-in catalog");
    let mut generator = GeneratorConfig::default();
    generator.shapes.max_elements = 256;
    let mut g = c.benchmark_group("sweep");
    g.sample_size(10);
    g.throughput(Throughput::Elements(CASES));
    let mut seed = 0;
    g.bench_function("elementwise_cases_le256", |b| {
        b.iter(|| {
            seed += 1;
            let mut options = RunOptions::new(seed, Budget::Cases(CASES));
            options.generator = generator.clone();
            let s = run(&catalog, &options, &mut std::io::sink()).expect("sweep runs");
            assert_eq!(s.cases, CASES);
        })
    });
    g.bench_function("graph_cases_le256", |b| {
        b.iter(|| {
            seed += 1;
            let mut options = RunOptions::new(seed, Budget::Cases(CASES));
            options.generator = generator.clone();
            options.graphs = true;
            let s = run(&catalog, &options, &mut std::io::sink()).expect("sweep runs");
            assert_eq!(s.cases, CASES);
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
