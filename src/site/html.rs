//! Memory text made safe for a page: escaping, sanitised Markdown, the page shell with its
//! Content-Security-Policy, and the JSON data block. Every string from memory reaches a page
//! through `esc`, `md` or `json_block`, never any other way.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// The policy every page carries: only the site's own files load (`'self'`, which Chromium
/// honours for `file://` too), no inline script or style, nothing from the network, no forms,
/// no `<base>`. A script that memory text smuggled into a page could not run even if escaping
/// failed.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'";

/// Text for an element's content or a quoted attribute value.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Whether a link target from memory may stay a link: http, https, mailto, or a relative URL.
/// Browsers drop ASCII whitespace and controls inside a scheme (`java\tscript:` runs), so
/// those are removed before the scheme is read.
pub fn safe_url(url: &str) -> bool {
    let clean: String = url
        .chars()
        .filter(|c| !c.is_ascii_control() && !c.is_ascii_whitespace())
        .collect();
    let end = clean.find(['/', '?', '#']).unwrap_or(clean.len());
    match clean[..end].find(':') {
        None => true,
        Some(i) => matches!(
            clean[..i].to_ascii_lowercase().as_str(),
            "http" | "https" | "mailto"
        ),
    }
}

/// Markdown from memory as HTML: CommonMark (tables, strikethrough, task lists); raw HTML is
/// shown as text; a link with another scheme (`javascript:`, `data:`) loses its target; an
/// image becomes a link to it, so opening a page never fetches anything.
pub fn md(text: &str) -> String {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(text, opts).map(|ev| match ev {
        Event::Html(s) | Event::InlineHtml(s) => Event::Text(s),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: checked(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: checked(dest_url),
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        // Raw HTML blocks are wrapped in these; their content is text now.
        Event::Start(Tag::HtmlBlock) => Event::Start(Tag::Paragraph),
        Event::End(TagEnd::HtmlBlock) => Event::End(TagEnd::Paragraph),
        other => other,
    });
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

fn checked(url: CowStr<'_>) -> CowStr<'_> {
    if safe_url(&url) {
        url
    } else {
        CowStr::Borrowed("#unsafe-link-removed")
    }
}

/// A JSON value as the body of `<script type="application/json">`: `<`, `>` and `&` as
/// `\u003c`… so no text in it can close the element or open a comment.
pub fn json_block(id: &str, value: &serde_json::Value) -> String {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    let mut out = String::with_capacity(json.len() + 64);
    out.push_str(&format!(
        "<script type=\"application/json\" id=\"{}\">",
        esc(id)
    ));
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out.push_str("</script>");
    out
}

/// The sections every page's header links to: (file, label).
pub const NAV: [(&str, &str); 7] = [
    ("index.html", "Overview"),
    ("decisions.html", "Decisions"),
    ("lessons.html", "Lessons"),
    ("facts.html", "Facts"),
    ("sessions.html", "Sessions"),
    ("stale.html", "Stale"),
    ("search.html", "Search"),
];

/// A whole page. `root` is the way back to the site's top (`""` or `"../"`), `current` the
/// NAV file this page belongs to; `title` and `project` are escaped here, `body` is HTML.
pub fn page(root: &str, current: &str, project: &str, title: &str, body: &str) -> String {
    let mut nav = String::new();
    for (file, label) in NAV {
        let here = if file == current {
            " aria-current=\"page\""
        } else {
            ""
        };
        nav.push_str(&format!("<a href=\"{root}{file}\"{here}>{label}</a>"));
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<meta name=\"generator\" content=\"zo site\">\
<title>{t} · {p}</title><link rel=\"stylesheet\" href=\"{root}style.css\"></head>\n\
<body data-root=\"{root}\"><header><a class=\"brand\" href=\"{root}index.html\">{p}</a><nav>{nav}</nav>\
<input id=\"zo-q\" type=\"search\" placeholder=\"Search memory\" aria-label=\"Search memory\"></header>\n\
<main>\n{body}\n</main>\n<footer>Built by <code>zo site</code> from <code>.zo/memory</code>.</footer>\n\
<script src=\"{root}site.js\"></script></body></html>\n",
        t = esc(title),
        p = esc(project),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_and_unsafe_links_become_harmless() {
        let out = md(
            "<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)> [a](javascript:alert(1)) [b](JaVa\tScRiPt:x) ![c](data:text/html,x) [ok](https://e.org/a?b#c) <javascript:alert(2)>",
        );
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(!out.to_lowercase().contains("href=\"javascript"), "{out}");
        assert!(!out.contains("href=\"data:"), "{out}");
        assert!(out.contains("href=\"https://e.org/a?b#c\""), "{out}");
    }

    #[test]
    fn urls_judged_by_their_scheme() {
        for ok in [
            "https://x",
            "http://x",
            "mailto:a@b",
            "d/D-1.html",
            "#top",
            "../a:b",
            "?q=a:b",
        ] {
            assert!(safe_url(ok), "{ok}");
        }
        for bad in [
            "javascript:x",
            " javascript:x",
            "java\nscript:x",
            "data:x",
            "vbscript:x",
            "file:///etc/passwd",
        ] {
            assert!(!safe_url(bad), "{bad}");
        }
    }

    #[test]
    fn json_block_cannot_be_closed_from_inside() {
        let v = serde_json::json!({"t": "</script><script>alert(1)</script><!--"});
        let b = json_block("zo-data", &v);
        assert_eq!(b.matches("</script>").count(), 1, "{b}");
        assert!(!b.contains("<!--"));
    }
}
