//! The query vectors a long-lived session made, by text: a server asked the same query again
//! (a page's filters or `k` changed, a reader paging, colleagues asking alike) answers without
//! the model, which is ~10 ms of CPU of a search's ~11 at 100k papers on 2 cores
//! (bench/runs/2026-12-07-store-nearest/). The model is deterministic, so a cached vector is
//! the vector the model would give again.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use crate::model::TokenStates;

/// Queries kept: at ~20 tokens a query's states are ~30 KB, so ~15 MB at most.
const CAPACITY: usize = 512;

/// A query's vector, and its token states when the index matches tokens.
pub type QueryVectors = Arc<(Vec<f32>, Option<TokenStates>)>;

/// The least recently used queries are forgotten first.
pub struct QueryCache {
    entries: Mutex<lru::LruCache<(bool, String), QueryVectors>>,
}

impl Default for QueryCache {
    fn default() -> Self {
        QueryCache::new(CAPACITY)
    }
}

impl QueryCache {
    /// A cache of at most `capacity` queries (at least one).
    pub fn new(capacity: usize) -> QueryCache {
        let capacity = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        QueryCache {
            entries: Mutex::new(lru::LruCache::new(capacity)),
        }
    }

    /// The vectors of `text` (with token states when `tokens`), made by `make` unless a
    /// previous call kept them. The model runs outside the lock: two threads asking the same
    /// new query at once may both run it, which costs time, never a wrong answer.
    pub fn get_or_make<E>(
        &self,
        text: &str,
        tokens: bool,
        make: impl FnOnce() -> Result<(Vec<f32>, Option<TokenStates>), E>,
    ) -> Result<QueryVectors, E> {
        let key = (tokens, text.to_string());
        if let Some(hit) = self.lock().get(&key) {
            return Ok(Arc::clone(hit));
        }
        let made = Arc::new(make()?);
        self.lock().put(key, Arc::clone(&made));
        Ok(made)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, lru::LruCache<(bool, String), QueryVectors>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made(x: f32) -> Result<(Vec<f32>, Option<TokenStates>), ()> {
        Ok((vec![x], None))
    }

    #[test]
    fn a_query_asked_again_is_not_made_again_until_it_is_the_least_recent() {
        let cache = QueryCache::new(2);
        let mut runs = 0;
        let mut ask = |text: &str, x: f32| {
            cache
                .get_or_make(text, false, || {
                    runs += 1;
                    made(x)
                })
                .unwrap()
                .0[0]
        };
        assert_eq!(ask("a", 1.0), 1.0);
        assert_eq!(ask("a", 9.0), 1.0, "kept");
        assert_eq!(ask("b", 2.0), 2.0);
        assert_eq!(ask("a", 9.0), 1.0, "a is now the most recent");
        assert_eq!(ask("c", 3.0), 3.0);
        assert_eq!(ask("b", 8.0), 8.0, "b was the least recent, forgotten");
        assert_eq!(runs, 4);
    }

    #[test]
    fn a_failed_run_is_not_kept_and_token_states_are_their_own_entry() {
        let cache = QueryCache::new(4);
        assert!(cache.get_or_make("q", false, || Err::<_, ()>(())).is_err());
        assert_eq!(
            cache.get_or_make("q", false, || made(1.0)).unwrap().0,
            [1.0]
        );
        let with_tokens = cache
            .get_or_make("q", true, || {
                Ok::<_, ()>((
                    vec![2.0],
                    Some(TokenStates {
                        ids: vec![],
                        states: vec![],
                    }),
                ))
            })
            .unwrap();
        assert_eq!(with_tokens.0, [2.0]);
        assert!(with_tokens.1.is_some());
    }
}
