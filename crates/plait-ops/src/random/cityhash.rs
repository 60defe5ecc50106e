//! CityHash64 (version 1.1) with a seed, the hash behind `kd.random.cityhash`
//! and the sampling of `kd.random.sample` / `mask` / `sample_n`: Koda's
//! values are `CityHash64WithSeed(text, seed)` with the top bit cleared, so
//! the results here equal Koda's bit for bit.
//!
//! Written from the published algorithm (Pike and Alakuijala, 2011); bytes
//! are read little-endian, arithmetic wraps.

const K0: u64 = 0xc3a5_c85c_97cb_3127;
const K1: u64 = 0xb492_b66f_be98_f273;
const K2: u64 = 0x9ae1_6a3b_2f90_404f;
const K_MUL: u64 = 0x9ddf_ea08_eb38_2d69;

#[inline(always)]
fn fetch64(s: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"))
}

#[inline(always)]
fn fetch32(s: &[u8], i: usize) -> u64 {
    u32::from_le_bytes(s[i..i + 4].try_into().expect("4 bytes")) as u64
}

#[inline(always)]
fn rotate(v: u64, shift: u32) -> u64 {
    v.rotate_right(shift)
}

#[inline(always)]
fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

#[inline(always)]
fn hash_len16_mul(u: u64, v: u64, mul: u64) -> u64 {
    let mut a = (u ^ v).wrapping_mul(mul);
    a ^= a >> 47;
    let mut b = (v ^ a).wrapping_mul(mul);
    b ^= b >> 47;
    b.wrapping_mul(mul)
}

#[inline(always)]
fn hash_len16(u: u64, v: u64) -> u64 {
    hash_len16_mul(u, v, K_MUL)
}

fn hash_len0to16(s: &[u8]) -> u64 {
    let len = s.len();
    if len >= 8 {
        let mul = K2.wrapping_add(len as u64 * 2);
        let a = fetch64(s, 0).wrapping_add(K2);
        let b = fetch64(s, len - 8);
        let c = rotate(b, 37).wrapping_mul(mul).wrapping_add(a);
        let d = rotate(a, 25).wrapping_add(b).wrapping_mul(mul);
        return hash_len16_mul(c, d, mul);
    }
    if len >= 4 {
        let mul = K2.wrapping_add(len as u64 * 2);
        let a = fetch32(s, 0);
        return hash_len16_mul((len as u64).wrapping_add(a << 3), fetch32(s, len - 4), mul);
    }
    if len > 0 {
        let (a, b, c) = (s[0] as u32, s[len >> 1] as u32, s[len - 1] as u32);
        let y = a.wrapping_add(b << 8);
        let z = (len as u32).wrapping_add(c << 2);
        return shift_mix((y as u64).wrapping_mul(K2) ^ (z as u64).wrapping_mul(K0)).wrapping_mul(K2);
    }
    K2
}

fn hash_len17to32(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(K1);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(K2);
    hash_len16_mul(
        rotate(a.wrapping_add(b), 43).wrapping_add(rotate(c, 30)).wrapping_add(d),
        a.wrapping_add(rotate(b.wrapping_add(K2), 18)).wrapping_add(c),
        mul,
    )
}

fn hash_len33to64(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(K2);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 24);
    let d = fetch64(s, len - 32);
    let e = fetch64(s, 16).wrapping_mul(K2);
    let f = fetch64(s, 24).wrapping_mul(9);
    let g = fetch64(s, len - 8);
    let h = fetch64(s, len - 16).wrapping_mul(mul);
    let u = rotate(a.wrapping_add(g), 43).wrapping_add(rotate(b, 30).wrapping_add(c).wrapping_mul(9));
    let v = (a.wrapping_add(g) ^ d).wrapping_add(f).wrapping_add(1);
    let w = u.wrapping_add(v).wrapping_mul(mul).swap_bytes().wrapping_add(h);
    let x = rotate(e.wrapping_add(f), 42).wrapping_add(c);
    let y = v.wrapping_add(w).wrapping_mul(mul).swap_bytes().wrapping_add(g).wrapping_mul(mul);
    let z = e.wrapping_add(f).wrapping_add(c);
    let a = x.wrapping_add(z).wrapping_mul(mul).wrapping_add(y).swap_bytes().wrapping_add(b);
    let b = shift_mix(z.wrapping_add(a).wrapping_mul(mul).wrapping_add(d).wrapping_add(h)).wrapping_mul(mul);
    b.wrapping_add(x)
}

#[inline(always)]
fn weak_hash_len32_with_seeds(s: &[u8], i: usize, a: u64, b: u64) -> (u64, u64) {
    let (w, x, y, z) = (fetch64(s, i), fetch64(s, i + 8), fetch64(s, i + 16), fetch64(s, i + 24));
    let mut a = a.wrapping_add(w);
    let mut b = rotate(b.wrapping_add(a).wrapping_add(z), 21);
    let c = a;
    a = a.wrapping_add(x).wrapping_add(y);
    b = b.wrapping_add(rotate(a, 44));
    (a.wrapping_add(z), b.wrapping_add(c))
}

/// CityHash64 of `s`.
pub fn city_hash64(s: &[u8]) -> u64 {
    let len = s.len();
    if len <= 16 {
        return hash_len0to16(s);
    }
    if len <= 32 {
        return hash_len17to32(s);
    }
    if len <= 64 {
        return hash_len33to64(s);
    }
    let mut x = fetch64(s, len - 40);
    let mut y = fetch64(s, len - 16).wrapping_add(fetch64(s, len - 56));
    let mut z = hash_len16(fetch64(s, len - 48).wrapping_add(len as u64), fetch64(s, len - 24));
    let mut v = weak_hash_len32_with_seeds(s, len - 64, len as u64, z);
    let mut w = weak_hash_len32_with_seeds(s, len - 32, y.wrapping_add(K1), x);
    x = x.wrapping_mul(K1).wrapping_add(fetch64(s, 0));
    let mut pos = 0;
    let mut remaining = (len - 1) & !63;
    loop {
        x = rotate(x.wrapping_add(y).wrapping_add(v.0).wrapping_add(fetch64(s, pos + 8)), 37).wrapping_mul(K1);
        y = rotate(y.wrapping_add(v.1).wrapping_add(fetch64(s, pos + 48)), 42).wrapping_mul(K1);
        x ^= w.1;
        y = y.wrapping_add(v.0).wrapping_add(fetch64(s, pos + 40));
        z = rotate(z.wrapping_add(w.0), 33).wrapping_mul(K1);
        v = weak_hash_len32_with_seeds(s, pos, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
        w = weak_hash_len32_with_seeds(s, pos + 32, z.wrapping_add(w.1), y.wrapping_add(fetch64(s, pos + 16)));
        std::mem::swap(&mut z, &mut x);
        pos += 64;
        remaining -= 64;
        if remaining == 0 {
            break;
        }
    }
    hash_len16(hash_len16(v.0, w.0).wrapping_add(shift_mix(y).wrapping_mul(K1)).wrapping_add(z), hash_len16(v.1, w.1).wrapping_add(x))
}

/// CityHash64WithSeed of `s`.
#[inline]
pub fn city_hash64_with_seed(s: &[u8], seed: u64) -> u64 {
    hash_len16(city_hash64(s).wrapping_sub(K2), seed)
}

/// Koda's hash of text `s` for `seed`: CityHash64WithSeed with the top bit
/// cleared, a non-negative INT64.
#[inline]
pub fn koda_hash(s: &[u8], seed: i64) -> i64 {
    (city_hash64_with_seed(s, seed as u64) & (i64::MAX as u64)) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // Koda's `kd.random.cityhash` on these texts.
        assert_eq!(koda_hash(b"", 0), 0);
        assert_eq!(koda_hash(b"", 123), 6228810487496759546);
        assert_eq!(koda_hash(b"a", 0), 4586666403957387900);
        assert_eq!(koda_hash(b"abc", 0), 6234256295332240817);
        assert_eq!(koda_hash(b"1", 0), 6991013420206262917);
        assert_eq!(koda_hash(b"1", 123), 6383113448643959200);
        assert_eq!(city_hash64(b""), 11160318154034397263);
        assert_eq!(city_hash64(b"abc"), 2640714258260161385);
    }

    // CityHash64WithSeed of bytes from a fixed LCG, as the reference
    // implementation computes them (every code path: 0..16, 17..32, 33..64
    // and the 64-byte loop).
    const LENGTHS: &[usize] = &[
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37,
        38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72,
        73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105,
        106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 191, 192, 193, 255,
        256, 257, 1000,
    ];
    const EXPECTED: &[u64] = &[
        0xcfd39671152f7910,
        0x70c9163915b697c8,
        0x3658c5d3c73c0ae6,
        0xc44e6e4826c2ad38,
        0x2c59951c6a2c007e,
        0xc2a1b8d454b5418f,
        0x494e07a8ec017820,
        0xbd47b7b6e1e8c922,
        0x48115cca637b1c6e,
        0x16c6f1e7735fb8b5,
        0xbe5ba69be3dba37,
        0xb35a60683dbdfbb9,
        0xc0fa4c37c0684b85,
        0x7841d97781164d72,
        0x5f1281acfde9abe3,
        0xbc3af94f27d697f4,
        0x9af64178fabbcd34,
        0x6f7bcbc801bd80c8,
        0x23d551d91812b94a,
        0xc2bbf9aec33096f4,
        0xd1a903623d737843,
        0xe3c6c2607b80e6b2,
        0x1244a64f19306395,
        0x78b5940e2e0d4ef0,
        0xfbb6c48df18f3b3,
        0x6cb3ad3d5611fe8b,
        0xd95362e2d2edb78e,
        0x1acc7339bf03baca,
        0xc320361d022f3f7a,
        0xb20a26b0a224bd37,
        0xfb5ce18056a609bf,
        0x41a3976ce38df829,
        0xb3898d6e63961cc8,
        0x1a94e709f1c056c4,
        0xa402f8b42091c7a7,
        0x6aaeb034e0a71f81,
        0x459ae7bc4a0c9d87,
        0xc6832db8b99c7be6,
        0xd59b74228840d97e,
        0x2924e57f151381ca,
        0x41438caf4ab34e40,
        0xbf53cf110f1dca4b,
        0xf86c38499276b23e,
        0xd2c8b51a59a020ee,
        0xac6fb08a00aa4674,
        0xf733bf3f4f38687e,
        0x5051fd3d841bb29e,
        0x4b29b32c6a057cdf,
        0x393a289709759670,
        0x460b0b071aeb8862,
        0x9e90b5211d9e1e8e,
        0x1d21cdde0ec729f2,
        0x400e1656b82183db,
        0x5dfc1752d9c26367,
        0x3a89c55cfde44636,
        0xcc04bc3a14eb2a68,
        0xfa64819e1704f407,
        0xacc3730fc7bbec9a,
        0x25093d5564cfbab0,
        0x3a8c79aa0a690d24,
        0x212b0ed444853f16,
        0xaa562ce3072bb26,
        0xc1b54dcde9b7fefe,
        0x6f463389e3cc08cb,
        0x646b2b454e2fa5b3,
        0xd9eb09535692c4fd,
        0x4c426da17fff5734,
        0xdf12f5f96ef36b86,
        0x72bd2e758332ef92,
        0xd860b433ad1e0671,
        0x7ce2641fed78c19b,
        0x37325f8cc8c22180,
        0x5c580e11aad96863,
        0xd21620612a6621a8,
        0x21d30343df0c3190,
        0x800f10cbb6900379,
        0x16142b36cbdf6f8e,
        0x46f82a91e7f8ec78,
        0x62f2ec6972112ae4,
        0xe7990207ee97e744,
        0xe036b5d0a29df4f3,
        0xb3551bed4d886ae8,
        0x7ae389cec8fc5a70,
        0x9602dfcdb0e3edff,
        0x51d357fdcdfdf508,
        0xefe2a197236db3a1,
        0xf65b5c3a543ebf6,
        0xee88072c486f87ba,
        0xd13eefd10647f932,
        0x346edba84e5fac8d,
        0xc4f66a1cf9be98f,
        0x1a632f941c2772ef,
        0xfd0a584c3701b65b,
        0xd7ea973a1cf7f8ba,
        0x364a0ba8ad21aec9,
        0x3d11acb327c68750,
        0xfa75df61e63a1ccf,
        0xc946b19fbdf11120,
        0x402d6536b0596d16,
        0xa215059ffa5e1325,
        0xfb35e7dfa2a9b42b,
        0xb308cb01f6357709,
        0x2f2a7caa07ce221c,
        0xbd52f86fc825a540,
        0x28549528e1a3fc31,
        0x834b2833ef04e39,
        0xc58f6a2f435283ab,
        0x2a010e9c8112167a,
        0x4cc106773d9d8d92,
        0xe98ac87cc1cc762e,
        0xe7cb9dd6ccbb01e1,
        0x41707a54d6c4fae1,
        0xd295f460e8ea18ce,
        0xdc76dc59ce359a22,
        0x6c7b68d40bd69c7,
        0xa3e060a0d2f30236,
        0xbcbbc926083520f1,
        0x48ed64338e3b735a,
        0xd14af48f2b22f1c3,
        0x79fa95e009aad3a8,
        0x3c7699ac8e63fcfa,
        0x2a6a8fda60f1cd48,
        0xd353df500fda2d6b,
        0xf10f1babca2cc04d,
        0x64c93a0027aabfc1,
        0x1d0a6ddc1a400329,
        0x87963c062fc8d34c,
        0x11194e540add6bde,
        0x3508087432e6adfb,
        0xb4f1c5a3d46e4e0d,
        0xdf31f0ad716d3a9e,
        0xa28a2ab1b924114a,
        0xda435ddfcdbfa0c8,
        0x2ab06e3a0c5bbd19,
        0xdac4db3e443dfb83,
        0x6002a0cb84ea16e,
        0x504623eae0364412,
    ];

    #[test]
    fn reference_vectors() {
        let mut x: u64 = 12345;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x
        };
        for (&n, &expected) in LENGTHS.iter().zip(EXPECTED) {
            let s: Vec<u8> = (0..n).map(|_| (next() >> 56) as u8).collect();
            let seed = next();
            assert_eq!(city_hash64_with_seed(&s, seed), expected, "length {n}");
        }
    }
}
