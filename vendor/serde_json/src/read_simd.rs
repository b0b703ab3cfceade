//! clawtop's patch to serde_json: where a string's next quote, backslash or control
//! character is, 32 bytes at a time on CPUs with AVX2 (detected at run time), for
//! `SliceRead::skip_to_escape`. The answer is the one its 8-byte loop gives; only the
//! stride differs.

/// `Ok(i)`: `rest[i]` is the first byte that is `"`, `\` or below 0x20. `Err(n)`: none is
/// among the first `n` bytes, where `n` is `rest.len()` rounded down to 32 (0 without AVX2);
/// the caller looks at the rest.
#[inline]
pub(crate) fn find_escape(rest: &[u8]) -> Result<usize, usize> {
    if rest.len() >= 32 && std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked above).
        unsafe { find_escape_avx2(rest) }
    } else {
        Err(0)
    }
}

#[target_feature(enable = "avx2")]
unsafe fn find_escape_avx2(rest: &[u8]) -> Result<usize, usize> {
    use core::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8,
    };
    let quote = _mm256_set1_epi8(b'"' as i8);
    let backslash = _mm256_set1_epi8(b'\\' as i8);
    let below_space = _mm256_set1_epi8(0x1f);
    let mut i = 0;
    while i + 32 <= rest.len() {
        // SAFETY: `i + 32 <= rest.len()`; the load is unaligned.
        let v = unsafe { _mm256_loadu_si256(rest.as_ptr().add(i).cast::<__m256i>()) };
        let hits = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash)),
            // max(v, 0x1f) == 0x1f exactly when v <= 0x1f (unsigned).
            _mm256_cmpeq_epi8(_mm256_max_epu8(v, below_space), below_space),
        );
        let mask = _mm256_movemask_epi8(hits) as u32;
        if mask != 0 {
            return Ok(i + mask.trailing_zeros() as usize);
        }
        i += 32;
    }
    Err(i)
}
