//! Synthetic map data for the map tests: papers in topics that look like the Agentic-RL
//! corpus (English titles, Chinese topics and highlights), with clustered unit vectors.

use ndarray::Array2;
use recommend::map::{Focus, MapCluster, MapData, MapPoint};

pub const TOPICS: [(&str, &str); 9] = [
    ("综述 Surveys", "综述"),
    ("工具使用 Tool use", "工具使用"),
    ("搜索与检索 Search agents", "搜索智能体"),
    ("代码智能体 Code agents", "代码智能体"),
    ("网页与GUI GUI agents", "GUI智能体"),
    ("推理强化学习 Reasoning RL", "推理强化学习"),
    ("多智能体 Multi-agent", "多智能体"),
    ("记忆与规划 Memory & planning", "记忆规划"),
    ("基准评测 Benchmarks", "基准评测"),
];

const NAMES: [&str; 24] = [
    "ReAct",
    "Toolformer",
    "Reflexion",
    "Voyager",
    "WebArena",
    "SWE-agent",
    "Search-R1",
    "ToolRL",
    "AgentBench",
    "OS-Copilot",
    "DeepResearcher",
    "ARPO",
    "GiGPO",
    "RAGEN",
    "WebRL",
    "CodeAct",
    "MemGPT",
    "Agent-R1",
    "ReTool",
    "OpenHands",
    "UI-TARS",
    "ZeroSearch",
    "StepTool",
    "ToRL",
];

const PHRASES: [&str; 8] = [
    "Scaling Reinforcement Learning for",
    "Learning to Plan with",
    "Multi-Turn Credit Assignment in",
    "Self-Improving",
    "Reward Modeling for",
    "Efficient Rollouts for",
    "A Benchmark of",
    "Curriculum Learning for",
];

const SUBJECTS: [&str; 9] = [
    "LLM Agents: A Survey",
    "Tool-Integrated Reasoning",
    "Search-Augmented Agents",
    "Software Engineering Agents",
    "Web and GUI Agents",
    "Long-Horizon Reasoning",
    "Multi-Agent Collaboration",
    "Agent Memory",
    "Interactive Environments",
];

const HIGHLIGHTS: [&str; 6] = [
    "提出了一种基于强化学习的智能体训练框架，在多轮交互中显著提升了任务成功率。",
    "通过工具调用与环境反馈联合优化策略，减少了无效动作。",
    "引入过程奖励模型，对长链推理的每一步进行细粒度信用分配。",
    "开源了训练代码与数据集，便于复现与扩展。",
    "在 WebArena 与 SWE-bench 上取得当时最优结果。",
    "系统梳理了该方向的代表性工作与开放问题。",
];

use recommend::util::SplitMix64 as Rng;

/// Uniform in `0..n` by modulo, as the fixtures were generated (the library's `below`
/// multiplies instead, which would change the data).
fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// `clusters` groups of about `n / clusters` unit vectors (dimension `d`); returns the vectors
/// and each row's group.
pub fn clustered_vectors(
    n: usize,
    clusters: usize,
    d: usize,
    seed: u64,
) -> (Array2<f32>, Vec<usize>) {
    let mut rng = Rng(seed);
    let centres: Vec<Vec<f32>> = (0..clusters)
        .map(|_| (0..d).map(|_| rng.next_signed()).collect())
        .collect();
    let mut a = Array2::<f32>::zeros((n, d));
    let mut group = Vec::with_capacity(n);
    for i in 0..n {
        // Uneven sizes: some topics are bigger than others.
        let c = (i * i / n + i) % clusters;
        let row: Vec<f32> = centres[c]
            .iter()
            .map(|&x| x + 0.9 * rng.next_signed())
            .collect();
        let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
        for (j, x) in row.iter().enumerate() {
            a[[i, j]] = x / norm;
        }
        group.push(c);
    }
    (a, group)
}

/// The `k` most cosine-similar other rows of each row.
pub fn related(v: &Array2<f32>, k: usize) -> Vec<Vec<usize>> {
    let n = v.nrows();
    (0..n)
        .map(|i| {
            let mut s: Vec<(f32, usize)> = (0..n)
                .filter(|&j| j != i)
                .map(|j| (v.row(i).dot(&v.row(j)), j))
                .collect();
            s.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            s.into_iter().take(k).map(|p| p.1).collect()
        })
        .collect()
}

/// A realistic-looking corpus map of `n` papers in the nine topics, with a focus on paper 0
/// when `focus` is set.
pub fn sample(n: usize, focus: bool) -> (MapData, Array2<f32>) {
    let (v, group) = clustered_vectors(n, TOPICS.len(), 384, 7);
    let mut rng = Rng(11);
    let points: Vec<MapPoint> = (0..n)
        .map(|i| {
            let c = group[i];
            let name = NAMES[below(&mut rng, NAMES.len())];
            let title = format!(
                "{name}-{i}: {} {}",
                PHRASES[below(&mut rng, PHRASES.len())],
                SUBJECTS[c]
            );
            MapPoint {
                id: format!("paper-{i}"),
                title,
                topic: TOPICS[c].1.to_string(),
                highlight: HIGHLIGHTS[below(&mut rng, HIGHLIGHTS.len())].to_string(),
                kind: if c == 0 {
                    "survey"
                } else if c == 8 {
                    "benchmark"
                } else {
                    "method"
                }
                .to_string(),
                url: None,
                cluster: c,
            }
        })
        .collect();
    let clusters = TOPICS
        .iter()
        .enumerate()
        .map(|(id, t)| MapCluster {
            id,
            label: t.0.to_string(),
        })
        .collect();
    let related = related(&v, 6);
    let focus = focus.then(|| {
        let neighbors = related[0].clone();
        let mut path = vec![0];
        path.extend(neighbors.iter().take(4));
        Focus {
            paper: 0,
            neighbors,
            path,
        }
    });
    let data = MapData {
        title: format!(
            "recommend: map of corpus/ ({n} papers, {} topics)",
            TOPICS.len()
        ),
        points,
        clusters,
        related,
        focus,
    };
    (data, v)
}

/// Text that breaks naive escaping.
pub const TRICKY: &str =
    "a < b && c > \"d\" 'e' </script><script>alert(1)</script> <!-- 中文「强化」 {{DATA}}";

/// `sample` with tricky text in every field of the first papers and in labels and title.
pub fn tricky(n: usize) -> (MapData, Array2<f32>) {
    let (mut data, v) = sample(n, true);
    for p in data.points.iter_mut().take(5) {
        p.title = format!("{} {}", p.title, TRICKY);
        p.topic = TRICKY.to_string();
        p.highlight = TRICKY.to_string();
        p.id = format!("{}&\"<>", p.id);
    }
    data.clusters[1].label = TRICKY.to_string();
    data.title = format!("map {TRICKY}");
    (data, v)
}

/// A map of `n` papers with made-up coordinates (cheap at any size: no layout, no vectors);
/// related papers are the next few of the same topic.
pub fn sample_with_coords(n: usize) -> (MapData, Vec<[f32; 2]>) {
    let (mut data, _) = sample(0, false);
    let mut rng = Rng(5);
    let centres: Vec<[f32; 2]> = (0..TOPICS.len())
        .map(|_| {
            [
                0.15 + 0.7 * (rng.next_signed() + 1.0) / 2.0,
                0.15 + 0.7 * (rng.next_signed() + 1.0) / 2.0,
            ]
        })
        .collect();
    let mut xy = Vec::with_capacity(n);
    for i in 0..n {
        let c = i % TOPICS.len();
        let title = format!(
            "{}-{i}: {} {}",
            NAMES[i % NAMES.len()],
            PHRASES[i % PHRASES.len()],
            SUBJECTS[c]
        );
        data.points.push(MapPoint {
            id: format!("paper-{i}"),
            title,
            topic: TOPICS[c].1.to_string(),
            highlight: HIGHLIGHTS[i % HIGHLIGHTS.len()].to_string(),
            kind: "method".to_string(),
            url: Some(format!("https://example.org/paper-{i}")),
            cluster: c,
        });
        xy.push([
            (centres[c][0] + 0.12 * rng.next_signed()).clamp(0.0, 1.0),
            (centres[c][1] + 0.12 * rng.next_signed()).clamp(0.0, 1.0),
        ]);
    }
    data.related = (0..n)
        .map(|i| (1..6).map(|k| (i + k * TOPICS.len()) % n.max(1)).collect())
        .collect();
    data.title = format!(
        "recommend: map of corpus/ ({n} papers, {} topics)",
        TOPICS.len()
    );
    (data, xy)
}
