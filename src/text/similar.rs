//! Jaro-Winkler similarity of one query against many names, the value `strsim::jaro_winkler`
//! gives, in time linear in the name.
//!
//! Resolving a name nobody has (a typo, a removed paper) measures the query against every
//! paper's names to find suggestions. strsim re-reads the name from its start for each query
//! character, so on 100,000 synthetic titles an unknown name cost 159 ms, nine tenths of it in
//! Jaro (benches/index.rs, `unknown name`). Here the query is analysed once and each name is read
//! once into one bit mask per query character: a query character's match is the lowest
//! unmatched bit of its mask inside the Jaro window, so the matching is strsim's own (the first
//! free position in the window) and so are the transpositions and the score.

/// A query prepared for [`JaroQuery::jaro_winkler`] against many names, with reusable buffers.
#[derive(Debug, Clone)]
pub struct JaroQuery {
    chars: Vec<char>,
    /// Each query character's slot: equal characters share one.
    slot: Vec<usize>,
    /// The slot of each ASCII character (`usize::MAX` when absent), and the others'.
    ascii: [usize; 128],
    other: Vec<(char, usize)>,
    slots: usize,
    name: Vec<char>,
    /// Per slot, a bit per name position holding that character (`words` u64s per slot).
    masks: Vec<u64>,
    /// Name positions already matched.
    taken: Vec<u64>,
    matched: Vec<bool>,
}

impl JaroQuery {
    pub fn new(query: &str) -> JaroQuery {
        let mut ascii = [usize::MAX; 128];
        let mut other: Vec<(char, usize)> = Vec::new();
        let mut slots = 0;
        let mut slot = Vec::new();
        let chars: Vec<char> = query.chars().collect();
        for &c in &chars {
            let known = if c.is_ascii() {
                &mut ascii[c as usize]
            } else {
                match other.iter().position(|e| e.0 == c) {
                    Some(p) => &mut other[p].1,
                    None => {
                        other.push((c, usize::MAX));
                        &mut other.last_mut().expect("just pushed").1
                    }
                }
            };
            if *known == usize::MAX {
                *known = slots;
                slots += 1;
            }
            slot.push(*known);
        }
        JaroQuery {
            chars,
            slot,
            ascii,
            other,
            slots,
            name: Vec::new(),
            masks: Vec::new(),
            taken: Vec::new(),
            matched: Vec::new(),
        }
    }

    fn slot_of(&self, c: char) -> Option<usize> {
        let s = if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other.iter().find(|e| e.0 == c)?.1
        };
        (s != usize::MAX).then_some(s)
    }

    /// `strsim::jaro_winkler(query, name)`.
    pub fn jaro_winkler(&mut self, name: &str) -> f64 {
        let sim = self.jaro(name);
        if sim > 0.7 {
            let prefix = self
                .chars
                .iter()
                .take(4)
                .zip(name.chars())
                .take_while(|(a, b)| **a == *b)
                .count();
            sim + 0.1 * prefix as f64 * (1.0 - sim)
        } else {
            sim
        }
    }

    /// `strsim::jaro(query, name)`.
    pub fn jaro(&mut self, name: &str) -> f64 {
        self.name.clear();
        self.name.extend(name.chars());
        let (a_len, b_len) = (self.chars.len(), self.name.len());
        if a_len == 0 && b_len == 0 {
            return 1.0;
        } else if a_len == 0 || b_len == 0 {
            return 0.0;
        }
        let range = (a_len.max(b_len) / 2).saturating_sub(1);
        let words = b_len.div_ceil(64);
        self.masks.clear();
        self.masks.resize(self.slots * words, 0);
        self.taken.clear();
        self.taken.resize(words, 0);
        for j in 0..b_len {
            if let Some(k) = self.slot_of(self.name[j]) {
                self.masks[k * words + j / 64] |= 1 << (j % 64);
            }
        }
        self.matched.clear();
        self.matched.resize(a_len, false);
        let mut matches = 0usize;
        for i in 0..a_len {
            let lo = i.saturating_sub(range);
            let hi = (i + range + 1).min(b_len);
            if lo >= hi {
                continue;
            }
            let k = self.slot[i];
            for w in lo / 64..=(hi - 1) / 64 {
                let base = w * 64;
                let mut free = self.masks[k * words + w] & !self.taken[w];
                if lo > base {
                    free &= !0u64 << (lo - base);
                }
                if hi < base + 64 {
                    free &= (1u64 << (hi - base)) - 1;
                }
                if free != 0 {
                    self.taken[w] |= free & free.wrapping_neg();
                    self.matched[i] = true;
                    matches += 1;
                    break;
                }
            }
        }
        if matches == 0 {
            return 0.0;
        }
        // Matched query characters in order against matched name positions in order.
        let mut transpositions = 0usize;
        let (mut w, mut bits) = (0usize, self.taken[0]);
        for i in 0..a_len {
            if !self.matched[i] {
                continue;
            }
            while bits == 0 {
                w += 1;
                bits = self.taken[w];
            }
            let j = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if self.chars[i] != self.name[j] {
                transpositions += 1;
            }
        }
        transpositions /= 2;
        let m = matches as f64;
        (m / a_len as f64 + m / b_len as f64 + (matches - transpositions) as f64 / m) / 3.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::synthetic::Rng;

    /// Random strings over a small alphabet (so characters repeat and match), ASCII and
    /// Chinese, of every length up to past two mask words.
    fn word(rng: &mut Rng, alphabet: &[char], max: usize) -> String {
        let len = rng.below(max + 1);
        (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect()
    }

    #[test]
    fn it_gives_strsims_values_exactly() {
        let mut rng = Rng::new(7);
        let alphabets: [&[char]; 3] = [
            &['a', 'b', 'c', 'r', '1'],
            &['a', 'e', 'g', 'n', 'o', 'p', 'r', 's', 't', '2'],
            &['强', '化', '学', '习', 'a', 'r', '1'],
        ];
        let mut measured = 0;
        for round in 0..3000 {
            let alphabet = alphabets[round % 3];
            let q = word(&mut rng, alphabet, if round % 5 == 0 { 150 } else { 20 });
            let mut query = JaroQuery::new(&q);
            for _ in 0..8 {
                let max = [8, 30, 70, 140, 200][rng.below(5)];
                let n = word(&mut rng, alphabet, max);
                let want = strsim::jaro_winkler(&q, &n);
                let got = query.jaro_winkler(&n);
                assert_eq!(got.to_bits(), want.to_bits(), "{q:?} ~ {n:?}");
                measured += 1;
            }
        }
        assert_eq!(measured, 24_000);
        for (q, n) in [
            ("", ""),
            ("", "a"),
            ("a", ""),
            ("webagnt-r1", "webagent-r1"),
            ("grpo", "gpro"),
            ("智能体学习", "智能体强化学习"),
        ] {
            assert_eq!(
                JaroQuery::new(q).jaro_winkler(n).to_bits(),
                strsim::jaro_winkler(q, n).to_bits(),
                "{q:?} ~ {n:?}"
            );
        }
    }
}
