//! Synthetic corpora for measuring scale: clustered unit vectors and paper records shaped like
//! the real ones (English titles, Chinese highlights, topic labels), deterministic for a seed.
//!
//! The real corpus has 141 papers; the targets for large indexes (100k papers) can only be
//! measured on generated data, because embedding 100k passages with the model takes hours on
//! a 2-core machine. The vectors are not model output, so quality figures on these corpora mean
//! nothing: they exist for timings and memory only.

use crate::corpus::{Kind, Paper};

/// A small, fast, deterministic generator (xorshift64). Not for anything but test data.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // xorshift never leaves 0; mix the seed so nearby seeds give unrelated streams.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Standard normal (Box-Muller).
    pub fn gauss(&mut self) -> f32 {
        let u = self.unit().max(1e-12);
        let v = self.unit();
        ((-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()) as f32
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Scale `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// Clustered unit vectors: `centers` random unit centers; each point is a center plus gaussian
/// noise of the same expected norm, normalized. This keeps nearest-neighbour structure (unlike
/// uniform random vectors, where every point is about equally far from every other).
#[derive(Debug, Clone)]
pub struct Clusters {
    pub dim: usize,
    pub centers: Vec<Vec<f32>>,
}

impl Clusters {
    pub fn new(rng: &mut Rng, count: usize, dim: usize) -> Clusters {
        let centers = (0..count.max(1))
            .map(|_| {
                let mut c: Vec<f32> = (0..dim).map(|_| rng.gauss()).collect();
                normalize(&mut c);
                c
            })
            .collect();
        Clusters { dim, centers }
    }

    /// A point near a random center; returns (center, vector).
    pub fn point(&self, rng: &mut Rng) -> (usize, Vec<f32>) {
        let c = rng.below(self.centers.len());
        (c, self.point_near(rng, c))
    }

    /// A point near center `c`.
    pub fn point_near(&self, rng: &mut Rng, c: usize) -> Vec<f32> {
        let sigma = 1.0 / (self.dim as f32).sqrt();
        let mut v: Vec<f32> = self.centers[c]
            .iter()
            .map(|x| x + sigma * rng.gauss())
            .collect();
        normalize(&mut v);
        v
    }
}

const PREFIXES: &[&str] = &[
    "Web", "Search", "Tool", "Code", "Math", "Agent", "Plan", "Reason", "Memory", "Multi", "Deep",
    "Self", "Meta", "Auto", "Open", "Long", "Fast", "Safe", "Vision", "Chem",
];
const SUFFIXES: &[&str] = &[
    "RL", "Agent", "Zero", "R1", "PO", "Coder", "Pilot", "Mind", "Gym", "Bench", "Star", "Loop",
];
const ADJECTIVES: &[&str] = &[
    "Scalable",
    "Verifiable",
    "Multi-Turn",
    "Asynchronous",
    "Hierarchical",
    "Curriculum",
    "Reward-Free",
    "Self-Evolving",
    "Tool-Integrated",
    "Long-Horizon",
    "Efficient",
    "Robust",
];
const SUBJECTS: &[&str] = &[
    "Reinforcement Learning",
    "Policy Optimization",
    "Reward Modeling",
    "Credit Assignment",
    "Exploration",
    "Self-Play",
    "Process Supervision",
    "Preference Learning",
    "Trajectory Search",
    "Value Estimation",
];
const TARGETS: &[&str] = &[
    "Web Agents",
    "Search Agents",
    "Code Generation",
    "Mathematical Reasoning",
    "GUI Agents",
    "Tool Use",
    "Multi-Agent Systems",
    "Embodied Agents",
    "Deep Research",
    "Dialogue",
];
const ZH_OPENERS: &[&str] = &[
    "提出",
    "设计",
    "构建",
    "引入",
    "探索",
    "系统研究",
    "首次实现",
];
const ZH_METHODS: &[&str] = &[
    "基于可验证奖励的强化学习框架",
    "多轮交互的策略优化方法",
    "分层信用分配机制",
    "异步并行的训练系统",
    "自我博弈的课程学习",
    "过程监督的奖励模型",
    "长程规划的记忆模块",
    "工具调用的轨迹搜索",
    "组内相对优势估计",
    "动态采样与裁剪策略",
];
const ZH_GOALS: &[&str] = &[
    "显著提升网页导航成功率",
    "降低训练成本",
    "缓解奖励欺骗",
    "提高多步推理的稳定性",
    "在数学与代码基准上取得领先",
    "支持大规模分布式训练",
    "增强跨任务泛化能力",
    "减少冗长输出",
];

/// `n` synthetic papers with unique ids and titles, topic `c` for points drawn near center `c`,
/// and their unit vectors (`dim` each, row-major in the second value).
pub fn corpus(n: usize, dim: usize, topics: usize, seed: u64) -> (Vec<Paper>, Vec<Vec<f32>>) {
    let mut rng = Rng::new(seed);
    let clusters = Clusters::new(&mut rng, topics, dim);
    let mut papers = Vec::with_capacity(n);
    let mut vectors = Vec::with_capacity(n);
    for i in 0..n {
        let (c, v) = clusters.point(&mut rng);
        // The number makes titles unique; the words vary with the topic like real names do.
        let name = format!("{}{}-{}", rng.pick(PREFIXES), rng.pick(SUFFIXES), i + 1);
        let title = format!(
            "{name}: {} {} for {}",
            rng.pick(ADJECTIVES),
            SUBJECTS[c % SUBJECTS.len()],
            TARGETS[(c / SUBJECTS.len() + i) % TARGETS.len()]
        );
        let highlight = format!(
            "{}{}，{}",
            rng.pick(ZH_OPENERS),
            ZH_METHODS[c % ZH_METHODS.len()],
            rng.pick(ZH_GOALS)
        );
        papers.push(Paper {
            id: format!("syn-{}", i + 1),
            title,
            aliases: vec![name],
            highlight,
            topic: format!("合成主题 {}", c + 1),
            topic_en: format!("Synthetic topic {}", c + 1),
            kind: Kind::ALL[rng.below(Kind::ALL.len())],
            open_source: rng.below(4) == 0,
            ..Paper::default()
        });
        vectors.push(v);
    }
    (papers, vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_corpus_is_deterministic_unique_and_unit() {
        let (a, va) = corpus(500, 16, 7, 3);
        let (b, vb) = corpus(500, 16, 7, 3);
        assert_eq!(a, b);
        assert_eq!(va, vb);
        let mut titles: Vec<&str> = a.iter().map(|p| p.title.as_str()).collect();
        titles.sort_unstable();
        titles.dedup();
        assert_eq!(titles.len(), 500);
        for v in &va {
            let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-4);
        }
        // Points of one topic are closer to each other than to other topics' points.
        let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
        let (mut same, mut other) = (Vec::new(), Vec::new());
        for i in 0..100 {
            for j in (i + 1)..100 {
                let d = dot(&va[i], &va[j]);
                if a[i].topic == a[j].topic {
                    same.push(d)
                } else {
                    other.push(d)
                }
            }
        }
        let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
        assert!(mean(&same) > mean(&other) + 0.2);
        // A different seed gives a different corpus.
        assert_ne!(corpus(50, 16, 7, 4).0, a[..50].to_vec());
    }
}
