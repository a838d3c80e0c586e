#!/bin/bash -eu
# ClusterFuzzLite build: every cargo-fuzz target of fuzz/ goes to $OUT, with its seed corpus
# (corpus/fuzz/<target>/) as <target>_seed_corpus.zip.
set -eu
cd "$SRC/conformance"

# GMP/MPFR/MPC are C dependencies built by gmp-mpfr-sys through their own configure scripts
# (portable `--enable-fat` builds, linked statically). They are not what is fuzzed: keep the
# sanitizer and coverage flags of CFLAGS/CXXFLAGS out of them. cargo-fuzz instruments the Rust
# code through RUSTFLAGS. Debug assertions stay on (overflow checks, `debug_assert!`s in the
# index maps), as in local `cargo fuzz run`.
(
  unset CFLAGS CXXFLAGS
  cargo fuzz build -O --debug-assertions
)

out_dir=fuzz/target/x86_64-unknown-linux-gnu/release
for target in $(cargo fuzz list); do
  cp "$out_dir/$target" "$OUT/"
  if [ -d "corpus/fuzz/$target" ]; then
    (cd "corpus/fuzz/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
done
