//! The two pictures, as inline SVG written here (no chart library, nothing loaded): decisions
//! per month by type, and a supersession chain. Colours come from classes in `style.css`
//! (`c0`…`c6`), never `style` attributes, which the page's policy would block.

use super::html::esc;
use std::collections::BTreeMap;

/// At most this many types get their own colour; the rest are counted as "other".
const TYPES: usize = 6;

/// Stacked bars: one per month from the first decision's month to the last one's, one colour
/// per type. `dated`: (YYYY-MM, type) per decision.
pub fn month_chart(dated: &[(String, String)]) -> String {
    if dated.is_empty() {
        return "<p class=\"muted\">No dated decisions yet.</p>".into();
    }
    let mut by_type: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, t) in dated {
        *by_type.entry(t.as_str()).or_default() += 1;
    }
    let mut types: Vec<(&str, usize)> = by_type.into_iter().collect();
    types.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let named: Vec<&str> = types.iter().take(TYPES).map(|t| t.0).collect();
    let slot = |t: &str| named.iter().position(|n| *n == t).unwrap_or(TYPES);
    let months = month_range(dated.iter().map(|d| d.0.as_str()));
    let mut counts = vec![[0usize; TYPES + 1]; months.len()];
    for (m, t) in dated {
        if let Ok(k) = months.binary_search(m) {
            counts[k][slot(t)] += 1;
        }
    }
    let most = counts
        .iter()
        .map(|c| c.iter().sum::<usize>())
        .max()
        .unwrap_or(1)
        .max(1);
    // The axis ends on a tick at or above the tallest bar.
    let max = most.div_ceil(step(most)) * step(most);
    let (w, h, left, bottom, top) = (720.0f64, 170.0f64, 34.0f64, 28.0f64, 10.0f64);
    let bw = (w - left) / months.len() as f64;
    let scale = (h - bottom - top) / max as f64;
    // A bar no wider than a thumb: one month alone must not fill the chart.
    let bar = (bw * 0.7).min(40.0);
    let mut s = format!(
        "<svg class=\"chart\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-labelledby=\"chart-t\"><title id=\"chart-t\">Decisions per month by type</title>"
    );
    for tick in (0..=max / step(max)).map(|k| k * step(max)) {
        let y = h - bottom - tick as f64 * scale;
        s.push_str(&format!(
            "<line class=\"grid\" x1=\"{left}\" x2=\"{w}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/><text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{tick}</text>",
            left - 6.0,
            y + 4.0
        ));
    }
    let label_every = months.len().div_ceil(12);
    for (k, m) in months.iter().enumerate() {
        let x = left + k as f64 * bw;
        let mut y = h - bottom;
        for (c, &n) in counts[k].iter().enumerate() {
            if n == 0 {
                continue;
            }
            let bh = n as f64 * scale;
            y -= bh;
            let name = named.get(c).copied().unwrap_or("other");
            s.push_str(&format!(
                "<rect class=\"c{c}\" x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bh:.1}\"><title>{}: {n} {}</title></rect>",
                x + (bw - bar) / 2.0,
                bar,
                esc(m),
                esc(name)
            ));
        }
        if k % label_every == 0 {
            s.push_str(&format!(
                "<text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                x + bw / 2.0,
                h - 10.0,
                esc(m)
            ));
        }
    }
    s.push_str("</svg><ul class=\"legend\">");
    for (c, (t, n)) in types.iter().take(TYPES).enumerate() {
        s.push_str(&format!(
            "<li><span class=\"swatch c{c}\"></span>{} <span class=\"muted\">{n}</span></li>",
            esc(if t.is_empty() { "(no type)" } else { t })
        ));
    }
    if types.len() > TYPES {
        let n: usize = types[TYPES..].iter().map(|t| t.1).sum();
        s.push_str(&format!(
            "<li><span class=\"swatch c{TYPES}\"></span>other <span class=\"muted\">{n}</span></li>"
        ));
    }
    s.push_str("</ul>");
    s
}

/// Every month from the earliest to the latest given (`YYYY-MM`), in order; text that is not
/// a month is left out.
fn month_range<'a>(months: impl Iterator<Item = &'a str>) -> Vec<String> {
    let parsed: Vec<(i32, u32)> = months
        .filter_map(|m| {
            Some((
                m.get(..4)?.parse().ok()?,
                m.get(5..7)?.parse().ok().filter(|n| (1..=12).contains(n))?,
            ))
        })
        .collect();
    // The span of the data only: months before the first decision would be empty bars that
    // say nothing (one month is one bar, no wider than `month_chart` allows).
    let (Some(&first), Some(&last)) = (parsed.iter().min(), parsed.iter().max()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (mut y, mut m) = first;
    // Bounded: a hand-typed year 0001 next to 2026 must not make 24,000 bars.
    while (y, m) <= last && out.len() < 240 {
        out.push(format!("{y:04}-{m:02}"));
        (y, m) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    }
    if out.len() == 240 {
        // Keep the latest 20 years.
        out.clear();
        let (mut y, mut m) = (last.0 - 19, last.1);
        while (y, m) <= last {
            out.push(format!("{y:04}-{m:02}"));
            (y, m) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
        }
    }
    out
}

/// A round step that cuts `0..=max` into at most five parts.
fn step(max: usize) -> usize {
    [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000]
        .into_iter()
        .find(|s| max / s <= 4)
        .unwrap_or(max.max(1))
}

/// One link in a supersession chain.
pub struct Link {
    pub href: Option<String>,
    pub id: String,
    pub date: String,
    pub title: String,
    pub outcome: Option<String>,
    pub current: bool,
}

/// A chain drawn left to right, oldest first, each box linking to its entry's page, an arrow
/// "superseded by" between boxes. `before`/`after`: links of the chain left out on either side
/// (the caller shows a window around the current entry), said as "… N more".
pub fn chain(links: &[Link], before: usize, after: usize) -> String {
    let (bw, bh, gap) = (250.0f64, 84.0f64, 44.0f64);
    let w = links.len() as f64 * bw + (links.len().saturating_sub(1)) as f64 * gap + 4.0;
    let more = |n: usize, side: &str| {
        if n == 0 {
            String::new()
        } else {
            format!("<p class=\"chain-more\">… {n} more {side}</p>")
        }
    };
    let mut s = format!(
        "<div class=\"chain-wrap\">{}<svg class=\"chain\" viewBox=\"0 0 {w} {}\" width=\"{w}\" height=\"{}\" role=\"img\" aria-labelledby=\"chain-t\"><title id=\"chain-t\">Supersession chain, oldest first</title>",
        more(before, "before (older)"),
        bh + 4.0,
        bh + 4.0
    );
    for (k, l) in links.iter().enumerate() {
        let x = 2.0 + k as f64 * (bw + gap);
        if k > 0 {
            let x0 = x - gap + 4.0;
            s.push_str(&format!(
                "<path class=\"arrow\" d=\"M{x0:.1} {m:.1} H{:.1} M{:.1} {:.1} L{:.1} {m:.1} L{:.1} {:.1}\"/>",
                x - 4.0,
                x - 12.0,
                bh / 2.0 - 6.0,
                x - 4.0,
                x - 12.0,
                bh / 2.0 + 8.0,
                m = bh / 2.0 + 2.0
            ));
        }
        let class = if l.current { "box current" } else { "box" };
        let mut g = format!(
            "<rect class=\"{class}\" x=\"{x:.1}\" y=\"2\" rx=\"8\" width=\"{bw}\" height=\"{bh}\"/>"
        );
        g.push_str(&format!(
            "<text class=\"cid\" x=\"{:.1}\" y=\"22\">{} · {}</text>",
            x + 10.0,
            esc(&l.id),
            esc(&l.date)
        ));
        g.push_str(&format!(
            "<text class=\"ctitle\" x=\"{:.1}\" y=\"44\">{}</text>",
            x + 10.0,
            esc(&clip(&l.title, 28))
        ));
        if let Some(o) = &l.outcome {
            g.push_str(&format!(
                "<text class=\"cout\" x=\"{:.1}\" y=\"66\">→ {}</text>",
                x + 10.0,
                esc(&clip(o, 32))
            ));
        }
        match &l.href {
            Some(h) => s.push_str(&format!(
                "<a href=\"{}\">{g}<title>{}</title></a>",
                esc(h),
                esc(&l.title)
            )),
            None => s.push_str(&g),
        }
    }
    s.push_str("</svg>");
    s.push_str(&more(after, "after (newer)"));
    s.push_str("</div>");
    s
}

/// At most `n` characters, with an ellipsis when cut.
pub fn clip(s: &str, n: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_fill_gaps_and_stay_bounded() {
        assert_eq!(
            month_range(["2026-11", "2026-09"].into_iter()),
            ["2026-09", "2026-10", "2026-11"]
        );
        assert_eq!(month_range(["2026-02"].into_iter()), ["2026-02"]);
        assert_eq!(month_range(["2025-01", "2026-02"].into_iter()).len(), 14);
        assert_eq!(month_range(["0001-01", "2026-11"].into_iter()).len(), 229);
        assert!(month_range(["nonsense"].into_iter()).is_empty());
    }

    #[test]
    fn chart_escapes_type_names() {
        let out = month_chart(&[("2026-11".into(), "<script>".into())]);
        assert!(!out.contains("<script>"), "{out}");
    }
}
