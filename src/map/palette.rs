//! A fixed categorical palette for clusters.

/// Twelve well-separated colours (Tableau 10 plus two), readable on white.
const BASE: [[u8; 3]; 12] = [
    [0x4e, 0x79, 0xa7],
    [0xf2, 0x8e, 0x2b],
    [0xe1, 0x57, 0x59],
    [0x76, 0xb7, 0xb2],
    [0x59, 0xa1, 0x4f],
    [0xed, 0xc9, 0x48],
    [0xb0, 0x7a, 0xa1],
    [0xff, 0x9d, 0xa7],
    [0x9c, 0x75, 0x5f],
    [0x6b, 0x6e, 0xcf],
    [0x2c, 0xa0, 0x2c],
    [0x17, 0xbe, 0xcf],
];

/// Colour of points whose cluster is unknown.
pub const UNCLUSTERED: &str = "#9a9a9a";

/// The colour (`#rrggbb`) of the cluster at position `slot`: the 12 base colours, then the same
/// hues darker, then lighter, and so on alternating, so that > 12 clusters stay distinguishable.
pub fn cluster_color(slot: usize) -> String {
    let [r, g, b] = BASE[slot % BASE.len()];
    let round = slot / BASE.len();
    // round 0: as is; odd rounds: darker; even rounds: lighter; steps grow every two rounds.
    let step = round.div_ceil(2).min(3) as f32 * 0.22;
    let mix = |c: u8| -> u8 {
        let c = c as f32;
        let v = if round == 0 {
            c
        } else if round % 2 == 1 {
            c * (1.0 - step)
        } else {
            c + (255.0 - c) * step
        };
        v.round().clamp(0.0, 255.0) as u8
    };
    format!("#{:02x}{:02x}{:02x}", mix(r), mix(g), mix(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colors_are_distinct_for_many_clusters() {
        let colors: Vec<String> = (0..48).map(cluster_color).collect();
        let mut dedup = colors.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), colors.len());
        assert_eq!(colors[0], "#4e79a7");
        assert!(colors.iter().all(|c| c.len() == 7 && c.starts_with('#')));
    }
}
