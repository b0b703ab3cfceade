//! Which entries of the open transcript are decoded: the visible ones plus a margin. Both
//! walks are bounded by one screen of entries, so a move costs the same anywhere in a
//! transcript of any length.

use super::WINDOW_MARGIN;
use crate::tui::model::effect::Effect;
use crate::tui::model::state::SessionView;

/// Moves `offset` so the selected entry is fully visible. Walks at most one screen of
/// entries, so it costs the same at entry 10 and at entry 10 million.
pub fn scroll_into_view(v: &mut SessionView, height: usize) {
    let len = v.len();
    if len == 0 {
        v.offset = 0;
        v.selected = 0;
        return;
    }
    v.selected = v.selected.min(len - 1);
    if v.selected < v.offset {
        v.offset = v.selected;
        return;
    }
    // Lowest offset that still shows `selected` completely.
    let mut lo = v.selected;
    let mut used = v.entry_height(lo);
    while lo > 0 && used + v.entry_height(lo - 1) <= height {
        lo -= 1;
        used += v.entry_height(lo);
    }
    if v.offset < lo {
        v.offset = lo;
    } else if v.offset > v.selected {
        v.offset = v.selected;
    } else {
        // Is `selected` below the visible part? (walk only offset..=selected, ≤ one screen)
        let mut used = 0;
        let mut i = v.offset;
        while i <= v.selected && used <= height {
            used += v.entry_height(i);
            i += 1;
        }
        if used > height {
            v.offset = lo;
        }
    }
}

/// The entry range kept decoded: the visible entries plus `WINDOW_MARGIN` screens each side.
pub(super) fn window(v: &SessionView, height: usize) -> (u32, u32) {
    let vis = v.visible_range(height);
    let margin = (height * WINDOW_MARGIN) as u32;
    (
        vis.start.saturating_sub(margin),
        (vis.end + margin).min(v.len()),
    )
}

/// Evicts rows outside the window and asks for the missing ones.
pub fn ensure_window(v: &mut SessionView, height: usize) -> Option<Effect> {
    let l = v.loaded.as_ref()?;
    let (lo, hi) = window(v, height);
    v.cache.retain(|&i, _| i >= lo && i < hi);
    v.requested.retain(|&i| i >= lo && i < hi);
    // Visible rows first so they arrive first.
    let vis = v.visible_range(height);
    let mut want: Vec<u32> = vis
        .clone()
        .chain(lo..vis.start)
        .chain(vis.end..hi)
        .collect();
    want.retain(|i| !v.cache.contains_key(i) && !v.requested.contains(i));
    if want.is_empty() {
        return None;
    }
    v.requested.extend(want.iter().copied());
    Some(Effect::DecodeRows {
        transcript: l.transcript.clone(),
        generation: v.generation,
        indices: want,
    })
}
