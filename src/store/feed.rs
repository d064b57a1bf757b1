//! A reader's feed state in the store: ratings (with the rated paper's vector) and the papers a
//! feed showed, in rows keyed by reader (`feed_ratings`, `feed_seen`), and one vector cache the
//! whole lab shares (`feed_vectors`, keyed by the passage text's hash: a paper one reader's feed
//! embedded is never embedded again for another).
//!
//! A save writes what changed since the state was read, in one transaction: new ratings and
//! changed verdicts, cleared ratings, newly shown papers. Two runs for one reader on two machines
//! therefore merge (both shown lists are kept) instead of one overwriting the other, and a failed
//! save leaves the rows as they were.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};

use postgres::GenericClient;

use super::push::vector_text;
use super::{Store, StoreError};
use crate::feed::home::Home;
use crate::feed::state::{
    Cache, MAX_SHOWN, Rating, STATE_VERSION, Shown, State, StateError, Verdict,
};

/// Longest reader name (`--user`).
pub const MAX_USER_CHARS: usize = 64;

/// Why a reader name is refused: empty, too long, or holding control characters.
pub fn check_user(user: &str) -> Result<(), String> {
    if user.trim().is_empty() {
        return Err("the reader's name is empty: give --user NAME".into());
    }
    if user.chars().count() > MAX_USER_CHARS {
        return Err(format!("--user: at most {MAX_USER_CHARS} characters"));
    }
    if user.chars().any(char::is_control) {
        return Err("--user: control characters are not allowed in a reader's name".into());
    }
    Ok(())
}

/// One reader's state in a store.
pub struct FeedHome {
    store: Arc<Store>,
    user: String,
    model_id: String,
    dim: usize,
    /// The state as last read, so a save writes only what changed since.
    read: Mutex<Option<State>>,
}

impl FeedHome {
    /// The home of `user` (checked by [`check_user`]) in `store`, whose vectors come from
    /// `model_id`, `dim` wide.
    pub fn new(store: Arc<Store>, user: &str, model_id: &str, dim: usize) -> FeedHome {
        FeedHome {
            store,
            // "ann " is ann: a stray space made a second reader of one person.
            user: user.trim().to_string(),
            model_id: model_id.to_string(),
            dim,
            read: Mutex::new(None),
        }
    }

    /// How errors name this reader's state.
    fn place(&self) -> std::path::PathBuf {
        format!(
            "the state of reader {:?} in {}",
            self.user,
            self.store.target()
        )
        .into()
    }

    fn failed(&self, e: StoreError) -> StateError {
        StateError::Write {
            path: self.place(),
            error: e.to_string(),
        }
    }

    fn load(&self, c: &mut impl GenericClient) -> Result<State, StoreError> {
        let fail = self.store.fail("reading the feed state");
        let mut state = State {
            version: STATE_VERSION,
            model_id: self.model_id.clone(),
            ratings: BTreeMap::new(),
            shown: BTreeMap::new(),
        };
        for row in c
            .query(
                "SELECT paper, verdict, title, embedding::text, rated_on FROM recommend.feed_ratings \
                 WHERE user_name = $1",
                &[&self.user],
            )
            .map_err(&fail)?
        {
            let verdict: i16 = row.get(1);
            let vector = parse_vector(row.get(3), self.dim).ok_or_else(|| StoreError::Damaged {
                target: self.store.target().clone(),
                detail: format!("a rating of reader {:?} holds a malformed vector", self.user),
            })?;
            state.ratings.insert(
                row.get(0),
                Rating {
                    verdict: if verdict > 0 { Verdict::Up } else { Verdict::Down },
                    title: row.get(2),
                    vector,
                    date: row.get(4),
                },
            );
        }
        for row in c
            .query(
                "SELECT paper, title, text_key, seen_on FROM recommend.feed_seen \
                 WHERE user_name = $1",
                &[&self.user],
            )
            .map_err(&fail)?
        {
            state.shown.insert(
                row.get(0),
                Shown {
                    title: row.get(1),
                    text: row.get(2),
                    date: row.get(3),
                },
            );
        }
        Ok(state)
    }

    fn write(&self, before: &State, after: &State) -> Result<(), StoreError> {
        let fail = self.store.fail("writing the feed state");
        self.store.with(|c| {
            let mut tx = c.transaction().map_err(&fail)?;
            let cleared: Vec<&String> = before
                .ratings
                .keys()
                .filter(|k| !after.ratings.contains_key(*k))
                .collect();
            tx.execute(
                "DELETE FROM recommend.feed_ratings WHERE user_name = $1 AND paper = ANY($2)",
                &[&self.user, &cleared],
            )
            .map_err(&fail)?;
            let changed: Vec<(&String, &Rating)> = after
                .ratings
                .iter()
                .filter(|(k, r)| before.ratings.get(*k) != Some(*r))
                .collect();
            let keys: Vec<&String> = changed.iter().map(|(k, _)| *k).collect();
            let verdicts: Vec<i16> = changed
                .iter()
                .map(|(_, r)| if r.verdict == Verdict::Up { 1 } else { -1 })
                .collect();
            let titles: Vec<&str> = changed.iter().map(|(_, r)| r.title.as_str()).collect();
            let vectors: Vec<String> = changed
                .iter()
                .map(|(_, r)| vector_text(r.vector.iter().copied()))
                .collect();
            let dates: Vec<&str> = changed.iter().map(|(_, r)| r.date.as_str()).collect();
            tx.execute(
                "INSERT INTO recommend.feed_ratings (user_name, paper, verdict, title, embedding, rated_on)
                 SELECT $1, p, v, t, e::vector, d
                 FROM unnest($2::text[], $3::int2[], $4::text[], $5::text[], $6::text[]) AS x(p, v, t, e, d)
                 ON CONFLICT (user_name, paper) DO UPDATE SET verdict = excluded.verdict,
                     title = excluded.title, embedding = excluded.embedding,
                     rated_on = excluded.rated_on",
                &[&self.user, &keys, &verdicts, &titles, &vectors, &dates],
            )
            .map_err(&fail)?;
            let new: Vec<(&String, &Shown)> = after
                .shown
                .iter()
                .filter(|(k, _)| !before.shown.contains_key(*k))
                .collect();
            let keys: Vec<&String> = new.iter().map(|(k, _)| *k).collect();
            let titles: Vec<&str> = new.iter().map(|(_, s)| s.title.as_str()).collect();
            let texts: Vec<&str> = new.iter().map(|(_, s)| s.text.as_str()).collect();
            let dates: Vec<&str> = new.iter().map(|(_, s)| s.date.as_str()).collect();
            tx.execute(
                "INSERT INTO recommend.feed_seen (user_name, paper, title, text_key, seen_on)
                 SELECT $1, p, t, k, d FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
                     AS x(p, t, k, d)
                 ON CONFLICT DO NOTHING",
                &[&self.user, &keys, &titles, &texts, &dates],
            )
            .map_err(&fail)?;
            // The oldest shown papers past the limit are forgotten, as the state file does.
            tx.execute(
                "DELETE FROM recommend.feed_seen WHERE user_name = $1 AND paper IN (
                     SELECT paper FROM recommend.feed_seen WHERE user_name = $1
                     ORDER BY seen_on DESC, paper OFFSET $2)",
                &[&self.user, &(MAX_SHOWN as i64)],
            )
            .map_err(&fail)?;
            tx.commit().map_err(&fail)
        })
    }
}

/// pgvector's text form `[x,y,...]` back to a vector of `dim` finite values.
fn parse_vector(text: &str, dim: usize) -> Option<Vec<f32>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let v: Vec<f32> = inner
        .split(',')
        .map(|x| x.trim().parse::<f32>().ok().filter(|x| x.is_finite()))
        .collect::<Option<_>>()?;
    (v.len() == dim).then_some(v)
}

impl Home for FeedHome {
    fn state(&self) -> Result<State, StateError> {
        let state = self
            .store
            .with(|c| self.load(c))
            .map_err(|e| StateError::Unreadable {
                path: self.place(),
                error: e.to_string(),
            })?;
        *self.read.lock().unwrap_or_else(|e| e.into_inner()) = Some(state.clone());
        Ok(state)
    }

    fn save_state(&self, state: &mut State) -> Result<(), StateError> {
        let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        let before = read.clone().unwrap_or_else(|| State::new(&self.model_id));
        self.write(&before, state).map_err(|e| self.failed(e))?;
        *read = Some(state.clone());
        Ok(())
    }

    fn vectors(&self, keys: &[String]) -> (Cache, Option<String>) {
        let mut cache = Cache {
            model_id: self.model_id.clone(),
            dim: self.dim,
            vectors: BTreeMap::new(),
        };
        let read = self.store.with(|c| {
            c.query(
                "SELECT text_key, embedding::text FROM recommend.feed_vectors \
                 WHERE text_key = ANY($1)",
                &[&keys],
            )
            .map_err(self.store.fail("reading the vector cache"))
        });
        match read {
            Ok(rows) => {
                for row in rows {
                    if let Some(v) = parse_vector(row.get(1), self.dim) {
                        cache.vectors.insert(row.get(0), v);
                    }
                }
                (cache, None)
            }
            Err(e) => (cache, Some(e.to_string())),
        }
    }

    /// The shared cache keeps every vector any reader's feed embedded (`keep` does not limit it:
    /// another reader's next run may need any of them).
    fn save_vectors(&self, cache: &Cache, _keep: &HashSet<String>) -> Result<(), StateError> {
        let keys: Vec<&String> = cache.vectors.keys().collect();
        let vectors: Vec<String> = cache
            .vectors
            .values()
            .map(|v| vector_text(v.iter().copied()))
            .collect();
        self.store
            .with(|c| {
                c.execute(
                    "INSERT INTO recommend.feed_vectors (text_key, embedding)
                     SELECT k, e::vector FROM unnest($1::text[], $2::text[]) AS x(k, e)
                     ON CONFLICT DO NOTHING",
                    &[&keys, &vectors],
                )
                .map(|_| ())
                .map_err(self.store.fail("writing the vector cache"))
            })
            .map_err(|e| self.failed(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_read_back_from_their_text_and_bad_names_are_refused() {
        let v = vec![0.25f32, -1.0, 3.5e-7];
        assert_eq!(parse_vector(&vector_text(v.iter().copied()), 3), Some(v));
        assert_eq!(parse_vector("[1,2]", 3), None);
        assert_eq!(parse_vector("[1,NaN,2]", 3), None);
        assert_eq!(parse_vector("1,2,3", 3), None);
        assert!(check_user("ann").is_ok());
        assert!(check_user(" ").is_err());
        assert!(check_user("a\u{7}b").is_err());
        assert!(check_user(&"x".repeat(65)).is_err());
    }
}
