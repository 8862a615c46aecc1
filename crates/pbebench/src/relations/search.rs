//! The category of a cascade found pair by pair, deciding each relation only while its
//! flag is unset and only where the rules' letters allow it, and giving up as soon as the
//! flags found make the category certain to be unwanted.

use super::Category;

/// Which of the two relations of a pair a caller still needs.
#[derive(Clone, Copy)]
pub(crate) struct Wanted {
    pub feeds: bool,
    pub bleeds: bool,
}

/// [`category_of`] for `n` rules known by the letter masks of their two sides (`masks(i)`,
/// see [`letter_mask`](crate::rule::letter_mask)): `decide(i, j, want)` gives `(feeds,
/// bleeds)` of rule i on rule j, exact for the relations in `want` (see [`Search`]).
///
/// `give_up(set)` is asked whenever a flag is found, with the flags known so far as
/// category bits; when it answers true the search stops and returns None (the generator
/// gives up once every category with those flags has a full quota).
pub(crate) fn category_by(
    n: usize,
    masks: impl Fn(usize) -> (u64, u64),
    mut decide: impl FnMut(usize, usize, Wanted) -> (bool, bool),
    give_up: impl Fn(Category) -> bool,
) -> Option<Category> {
    let mut search = Search::default();
    for _ in 0..n {
        if search.push(&masks, &mut decide, &give_up) {
            return None;
        }
    }
    Some(search.category())
}

/// The category of a cascade that grows one rule at a time: after each [`push`](Self::push)
/// it is the category of the rules pushed so far. As the four flags only ever get set
/// when rules are added, a search can give up as soon as the flags found make the final
/// category certain to be an unwanted one, before the rest of the cascade exists.
///
/// Each relation is decided only while its flag is still unset, so long cascades, which
/// set all four flags early, cost far fewer classifications; and only when the letter
/// masks allow it (a rule can only feed a pattern it shares a letter with, unless it
/// deletes, and only bleed one it shares a letter with).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Search {
    /// The rules pushed so far.
    len: usize,
    /// The flags found so far, as category bits.
    flags: u8,
}

impl Search {
    /// Adds rule `n`, the next one (`n` rules were pushed before): decides its relations
    /// with every earlier rule i, both ways, for the flags still unset. `masks` and
    /// `decide` are as for [`category_by`], over the rules pushed so far and this one.
    /// True when the search gives up: `give_up(flags)` answered true when a flag was found.
    pub(crate) fn push(
        &mut self,
        masks: impl Fn(usize) -> (u64, u64),
        mut decide: impl FnMut(usize, usize, Wanted) -> (bool, bool),
        give_up: impl Fn(Category) -> bool,
    ) -> bool {
        const ALL: u8 = 0b1111;
        let n = self.len;
        self.len += 1;
        let (mask_sn, mask_tn) = masks(n);
        // Decides `first` on `second` for the flags (category bits) still unset among
        // `feeding` and `bleeding`, where the masks allow them. True once the search gives
        // up.
        let mut visit =
            |flags: &mut u8, first, second, (feeding, bleeding), (may_feed, may_bleed)| {
                let want = Wanted {
                    feeds: *flags & feeding == 0 && may_feed,
                    bleeds: *flags & bleeding == 0 && may_bleed,
                };
                if !want.feeds && !want.bleeds {
                    return false;
                }
                let (feeds, bleeds) = decide(first, second, want);
                let found = if want.feeds && feeds { feeding } else { 0 }
                    | if want.bleeds && bleeds { bleeding } else { 0 };
                *flags |= found;
                found != 0 && give_up(Category(*flags))
            };
        // The earlier rules, 64 at a time: first the sets of those the masks allow a
        // relation with (a cheap loop with no calls), then the pairs in those sets.
        for base in (0..n).step_by(64) {
            let (mut fed, mut shared, mut fed_back) = (0u64, 0u64, 0u64);
            for i in base..n.min(base + 64) {
                let (mask_si, mask_ti) = masks(i);
                let bit = 1 << (i - base);
                // Rule i feeds rule n only if it deletes or writes a letter of n's
                // pattern; either bleeds the other only if their patterns share a letter.
                fed |= if mask_ti == 0 || mask_ti & mask_sn != 0 {
                    bit
                } else {
                    0
                };
                shared |= if mask_si & mask_sn != 0 { bit } else { 0 };
                fed_back |= if mask_tn == 0 || mask_tn & mask_si != 0 {
                    bit
                } else {
                    0
                };
            }
            let mut pending = fed | shared | fed_back;
            while pending != 0 && self.flags != ALL {
                let k = pending.trailing_zeros();
                pending &= pending - 1;
                let (i, bit) = (base + k as usize, 1 << k);
                let may_bleed = shared & bit != 0;
                // Rule i, earlier, on rule n: feeding and bleeding; rule n on rule i:
                // counter-feeding and counter-bleeding.
                if visit(&mut self.flags, i, n, (8, 4), (fed & bit != 0, may_bleed))
                    || visit(
                        &mut self.flags,
                        n,
                        i,
                        (2, 1),
                        (fed_back & bit != 0, may_bleed),
                    )
                {
                    return true;
                }
            }
        }
        false
    }

    /// The category of the rules pushed so far.
    pub(crate) fn category(self) -> Category {
        Category(self.flags)
    }
}
