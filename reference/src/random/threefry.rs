//! Threefry-2x32 with 20 rounds (Salmon et al., SC 2011, §3.1: the Threefish-256 round
//! structure reduced to two 32-bit words; rotation constants R = 13, 15, 26, 6, 17, 29, 16, 24;
//! key schedule parity C240 = 0x1BD11BDA; a key injection after every 4 rounds adding the
//! injection number to the second word), and the counter layout of 32-bit and 64-bit outputs.

/// The rotation distances of Threefry-2x32, rounds 0-7 (then repeating).
const ROTATIONS: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
/// The key schedule's parity constant (Threefish's C240, truncated to 32 bits).
const PARITY: u32 = 0x1BD1_1BDA;

/// Threefry-2x32-20 of counter `x` under `key`.
pub fn threefry2x32(key: [u32; 2], x: [u32; 2]) -> [u32; 2] {
    let schedule = [key[0], key[1], PARITY ^ key[0] ^ key[1]];
    let mut v = [
        x[0].wrapping_add(schedule[0]),
        x[1].wrapping_add(schedule[1]),
    ];
    for injection in 1..=5u32 {
        let base = if injection % 2 == 1 { 0 } else { 4 };
        for r in &ROTATIONS[base..base + 4] {
            v[0] = v[0].wrapping_add(v[1]);
            v[1] = v[1].rotate_left(*r) ^ v[0];
        }
        let s = injection as usize;
        v[0] = v[0].wrapping_add(schedule[s % 3]);
        v[1] = v[1]
            .wrapping_add(schedule[(s + 1) % 3])
            .wrapping_add(injection);
    }
    v
}

/// The two 32-bit words of `x`, low first.
pub fn halves(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

/// The counters used and the elements (row-major, truncated to `width` bits) of data of
/// dimensions `dims` under XLA's layout (`conformance_spec::random`):
/// - 64 bits: element `i` is counter `counter + i`, word 0 low;
/// - narrower: the *split dimension* is the first even one, else the largest (the first of
///   equals); the half shape halves it (rounding up). Element with coordinate `j` along the
///   split dimension and the others the same takes word `j mod 2` of the counter whose row-major
///   index in the half shape has coordinate `j div 2` there. A scalar takes word 0 of one counter.
pub fn layout(key: u64, counter: u64, dims: &[i64], width: u32) -> (u64, Vec<u128>) {
    let key = halves(key);
    let elements: i64 = dims.iter().product();
    let word = |c: u64| threefry2x32(key, halves(counter.wrapping_add(c)));
    if width == 64 {
        let data = (0..elements as u64)
            .map(|i| {
                let w = word(i);
                u128::from(w[0]) | (u128::from(w[1]) << 32)
            })
            .collect();
        return (elements as u64, data);
    }
    if dims.is_empty() {
        return (1, vec![super::truncate(u64::from(word(0)[0]), width)]);
    }
    let split = dims.iter().position(|d| d % 2 == 0).unwrap_or_else(|| {
        let mut best = 0;
        for (i, d) in dims.iter().enumerate() {
            if *d > dims[best] {
                best = i;
            }
        }
        best
    });
    let mut half = dims.to_vec();
    half[split] = (dims[split] + 1) / 2;
    let used: i64 = half.iter().product();
    let mut data = Vec::with_capacity(elements as usize);
    conformance_spec::index::for_each_index(dims, |idx| {
        let mut h = idx.to_vec();
        h[split] = idx[split] / 2;
        let mut linear = 0u64;
        for (x, d) in h.iter().zip(&half) {
            linear = linear * (*d as u64) + *x as u64;
        }
        let w = word(linear)[(idx[split] % 2) as usize];
        data.push(super::truncate(u64::from(w), width));
    });
    (used as u64, data)
}
