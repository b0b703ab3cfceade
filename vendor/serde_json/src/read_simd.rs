//! clawtop's patch to serde_json: where a string's next quote, backslash or control
//! character is, for `SliceRead::skip_to_escape`, 16 bytes at a time with SSE2 (which every
//! x86_64 CPU has) and, past the first 16, 32 at a time with AVX2 where the CPU has it
//! (detected at run time). The answer is the one its 8-byte loop gives; only the stride
//! differs.

use core::arch::x86_64::{
    __m128i, __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm_cmpeq_epi8, _mm_loadu_si128,
    _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
};

/// `Ok(i)`: `rest[i]` is the first byte that is `"`, `\` or below 0x20. `Err(n)`: none is
/// among the first `n` bytes, where `n` is `rest.len()` rounded down to 16; the caller
/// looks at the rest.
#[inline(always)]
pub(crate) fn find_escape(rest: &[u8]) -> Result<usize, usize> {
    // Most strings end, or reach an escape, within 16 bytes: looked at inline.
    let mut i = match sse2_block(rest, 0) {
        Some(Ok(found)) => return Ok(found),
        Some(Err(())) => 16,
        None => return Err(0),
    };
    if rest.len() - i >= 32 && std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked above).
        match unsafe { avx2_blocks(rest, i) } {
            Ok(found) => return Ok(found),
            Err(scanned) => i = scanned,
        }
    }
    loop {
        match sse2_block(rest, i) {
            Some(Ok(found)) => return Ok(found),
            Some(Err(())) => i += 16,
            None => return Err(i),
        }
    }
}

/// The 16 bytes of `rest` from `at`: Some(Ok(i)) with the first one found, Some(Err(()))
/// with none, None when fewer than 16 are left.
#[inline(always)]
fn sse2_block(rest: &[u8], at: usize) -> Option<Result<usize, ()>> {
    if at + 16 > rest.len() {
        return None;
    }
    // SAFETY: SSE2 is part of x86_64; the load reads `rest[at..at + 16]`.
    let mask = unsafe {
        let v = _mm_loadu_si128(rest.as_ptr().add(at).cast::<__m128i>());
        let below_space = _mm_set1_epi8(0x1f);
        let hits = _mm_or_si128(
            _mm_or_si128(
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)),
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)),
            ),
            // max(v, 0x1f) == 0x1f exactly when v <= 0x1f (unsigned).
            _mm_cmpeq_epi8(_mm_max_epu8(v, below_space), below_space),
        );
        _mm_movemask_epi8(hits) as u32
    };
    Some(if mask != 0 {
        Ok(at + mask.trailing_zeros() as usize)
    } else {
        Err(())
    })
}

/// From `at`, 32 bytes at a time while 32 are left: Ok(i) with the first one found, Err(n)
/// with none before `n`.
#[target_feature(enable = "avx2")]
unsafe fn avx2_blocks(rest: &[u8], mut at: usize) -> Result<usize, usize> {
    let quote = _mm256_set1_epi8(b'"' as i8);
    let backslash = _mm256_set1_epi8(b'\\' as i8);
    let below_space = _mm256_set1_epi8(0x1f);
    while at + 32 <= rest.len() {
        // SAFETY: `at + 32 <= rest.len()`; the load is unaligned.
        let v = unsafe { _mm256_loadu_si256(rest.as_ptr().add(at).cast::<__m256i>()) };
        let hits = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash)),
            _mm256_cmpeq_epi8(_mm256_max_epu8(v, below_space), below_space),
        );
        let mask = _mm256_movemask_epi8(hits) as u32;
        if mask != 0 {
            return Ok(at + mask.trailing_zeros() as usize);
        }
        at += 32;
    }
    Err(at)
}
