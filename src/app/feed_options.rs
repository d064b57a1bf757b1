//! `recommend feed`'s options, checked once before anything loads (hyperfine's `Options`):
//! every usage error of the command is found here, not halfway through a feed.

use anyhow::Result;

use recommend::corpus::arxiv;
use recommend::feed::Learner;
use recommend::feed::candidates;

use super::usage;
use crate::cli::{FeedArgs, LearnerArg};

/// What `recommend feed` was asked, checked once before anything loads: the arguments, with
/// `--since` as the date it names, and the learner the ratings re-rank with.
pub(crate) struct FeedOptions {
    pub args: FeedArgs,
    pub learner: Learner,
}

/// The days of the month of `s` when `s` is `YYYY-MM-DD` in form but names a day that month
/// does not have (`2025-02-30`).
fn no_such_day(s: &str) -> Option<u32> {
    let mut parts = s.trim().splitn(3, '-').map(|p| p.parse::<u32>().ok());
    let (y, m, d) = (parts.next()??, parts.next()??, parts.next()??);
    let days = recommend::util::date::days_in_month(y, m);
    ((1..=12).contains(&m) && d > days).then_some(days)
}

impl FeedOptions {
    pub(crate) fn new(mut args: FeedArgs) -> Result<FeedOptions> {
        if args.limit == 0 || args.limit > 1000 {
            return Err(usage(
                "-k/--limit/-n must be between 1 and 1000 (the papers a feed shows)",
            ));
        }
        args.since = match args.since {
            Some(s) => Some(candidates::parse_since(&s).ok_or_else(|| {
                usage(match no_such_day(&s) {
                    Some(days) => format!("--since {s:?}: that month has {days} days"),
                    None => format!("--since {s:?}: give a date as YYYY-MM-DD, YYYY-MM or YYYY"),
                })
            })?),
            None => None,
        };
        for c in &args.arxiv {
            arxiv::validate_category(c).map_err(|e| usage(e.to_string()))?;
        }
        if !args.arxiv.is_empty() && !(1..=30).contains(&args.days) {
            return Err(usage("--days must be between 1 and 30"));
        }
        if args.min_score.is_some_and(|s| !s.is_finite()) {
            return Err(usage("--min-score must be a number"));
        }
        // An empty word would match every paper (--exclude) or, as typed, none (--include).
        for (flag, words) in [("--include", &args.include), ("--exclude", &args.exclude)] {
            if words.iter().any(|w| w.trim().is_empty()) {
                return Err(usage(format!(
                    "{flag} needs a word; an empty one filters nothing"
                )));
            }
        }
        if args
            .interest
            .as_deref()
            .is_some_and(|i| i.trim().is_empty())
        {
            return Err(usage("--interest needs (part of) an interest's name"));
        }
        let learner = match args.learner {
            LearnerArg::None => Learner::None,
            LearnerArg::Rocchio => Learner::Rocchio,
            LearnerArg::Linear => Learner::Linear,
            LearnerArg::Neighbours => Learner::Neighbours,
        };
        Ok(FeedOptions { args, learner })
    }
}
