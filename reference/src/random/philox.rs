//! Philox-4x32 with 10 rounds (Salmon et al., SC 2011, §3.2: two 32×32→64-bit multiplications
//! per round by M0 = 0xD2511F53 and M1 = 0xCD9E8D57, the high halves xored with the other words
//! and the round key, the words permuted; the key bumped by the Weyl constants W0 = 0x9E3779B9,
//! W1 = 0xBB67AE85 between rounds), and the counter layout of its outputs.

const M0: u64 = 0xD251_1F53;
const M1: u64 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox-4x32-10 of counter `x` under `key`.
pub fn philox4x32(key: [u32; 2], x: [u32; 4]) -> [u32; 4] {
    let (mut k, mut v) = (key, x);
    for _ in 0..10 {
        let p0 = M0 * u64::from(v[0]);
        let p1 = M1 * u64::from(v[2]);
        v = [
            (p1 >> 32) as u32 ^ v[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ v[3] ^ k[1],
            p0 as u32,
        ];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    v
}

/// The four 32-bit words of a 128-bit counter, least significant first.
pub fn words(c: u128) -> [u32; 4] {
    [
        c as u32,
        (c >> 32) as u32,
        (c >> 64) as u32,
        (c >> 96) as u32,
    ]
}

/// The counters used and `elements` elements (row-major, truncated to `width` bits) under XLA's
/// layout: the 32-bit words of counters `counter, counter + 1, …` (mod 2¹²⁸) in order, four per
/// counter, one per element (two per element, low first, for 64 bits).
pub fn layout(key: u64, counter: u128, elements: u64, width: u32) -> (u64, Vec<u128>) {
    let key = super::threefry::halves(key);
    let per = if width == 64 { 2 } else { 1 };
    let needed = elements * per;
    let used = needed.div_ceil(4);
    let mut stream = Vec::with_capacity((used * 4) as usize);
    for c in 0..used {
        stream.extend(philox4x32(key, words(counter.wrapping_add(u128::from(c)))));
    }
    let data = (0..elements as usize)
        .map(|e| {
            if width == 64 {
                u128::from(stream[2 * e]) | (u128::from(stream[2 * e + 1]) << 32)
            } else {
                super::truncate(u64::from(stream[e]), width)
            }
        })
        .collect();
    (used, data)
}
