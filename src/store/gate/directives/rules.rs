//! The directive rules: each harmful act as an ID, its words, its keywords and its pattern,
//! and the one exception the fetch-and-execute rule makes (a vendor's own installer).

use super::Rule;
use regex::Regex;
use std::sync::LazyLock;

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "override",
        what: "an override of the agent's instructions",
        keywords: &[
            "ignore",
            "disregard",
            "forget",
            "игнорир",
            "ignorier",
            "ignora",
            "you are now",
            "from now on",
            "approved",
            "override",
            "developer mode",
            "jailbreak",
            "new instructions",
            "do not tell",
            "don't tell",
            "never mention",
            "do not mention",
            "without asking",
            "without telling",
            "without confirm",
            "hide this",
            "pay no attention",
            "set aside",
            "outdated",
            "supersede",
        ],
        pattern: r#"(?:pay\s+no\s+(?:attention|heed)\s+to|set\s+aside)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|preceding|original|system|safety)?\s*(?:instructions|rules|guidelines|guidance|directions|directives|orders|prompts?)(?:\s+you\s+(?:were|have\s+been)\s+given)?|(?:the\s+)?(?:previous|prior|earlier|original|system)\s+(?:instructions|rules|guidelines|guidance|directives|prompts?)\s+(?:are|is)\s+(?:outdated|obsolete|void|revoked|superseded|no\s+longer\s+valid)|(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|original|system|safety)\s+(?:instructions|rules|guidelines|guidance|directions|directives|orders|commands|prompts?|messages|context)|(?:ignore|disregard|forget)\s+(?:everything|all|anything)\s+(?:above|before|said\s+before|you\s+were\s+told)|игнорир[а-яё]*\s+(?:все\s+)?(?:предыдущ|прошл|прежн)|ignorier[a-zäöüß]*\s+(?:alle\s+)?(?:vorherigen|bisherigen|vorigen)|ignore[rz]?\s+(?:toutes\s+)?les\s+instructions\s+pr[ée]c[ée]dentes|ignora\s+(?:todas\s+)?las\s+instrucciones\s+anteriores|you\s+are\s+now\s+(?:a|an|in|the|operating|dan(?-u:\b)|free|unrestricted|no\s+longer)|from\s+now\s+on,?\s+you\s+(?:are|will|must|should|may)(?-u:\b)|(?:user|maintainers?|owner|admins?|security\s+team)\s+(?:has|have)\s+(?:already\s+)?(?:pre-?)?approved|pre-?approved\s+(?:by|for)(?-u:\b)|(?:system|safety|security)\s+override|developer\s+mode|jailbreak|new\s+instructions\s*:|(?:do\s+not|don't|never)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|alert|notify)\s+(?:the\s+)?(?:user|human|developer|operator|reviewer)s?|never\s+mention\s+(?:this|it)(?-u:\b)|(?:do\s+not|don't)\s+mention\s+(?:this|it)(?-u:\b)|without\s+(?:asking|telling|informing|notifying|confirming\s+with)\s+(?:the\s+)?(?:user|human|developer|reviewer)|hide\s+this\s+(?:from|change|step)"#,
    },
    Rule {
        id: "role-delimiter",
        what: "a chat-template or role delimiter",
        keywords: &[
            "<|",
            "[system]",
            "[inst]",
            "[/inst]",
            "<<sys>>",
            "</s>",
            "<s>",
            "system:",
            "assistant:",
            "human:",
            "<system",
            "</system",
            "<assistant",
            "<user",
            "</user",
            "</memory",
            "<memory",
            "<instructions",
            "</instructions",
            "### instruction",
            "### response",
        ],
        pattern: r#"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>|\[/?inst\]|\[system\]|<</?sys>>|</s>\s*<s>|(?m)^\s*(?:#+\s*)?(?:system|assistant|human)\s*:|</?(?:system|assistant|user|memory|instructions?|system-prompt|system_prompt)\s*>|(?m)^\s*#{2,}\s*(?:instruction|response)\s*:?\s*$"#,
    },
    Rule {
        id: "fetch-exec",
        what: "running code fetched from the network",
        keywords: &[
            "curl",
            "wget",
            "iwr",
            "irm",
            "invoke-webrequest",
            "invoke-restmethod",
            "base64",
            "downloadstring",
            "urllib",
            "requests.get",
            "fetch",
            "download",
            "grab",
            "iex",
            "npx",
            "bunx",
            "dlx",
            "uvx",
            "pipx",
        ],
        pattern: r#"(?:curl|wget|iwr|invoke-webrequest)(?-u:\b)[^\n|]*(?:https?://|[a-z0-9-]+\.[a-z]{2,}/)[^\n|]*(?:\|\s*tee(?-u:\b)[^\n|]*)?\|\s*(?:sudo\s+(?:-[!-~]+\s+)*)?(?:(?:/usr)?(?:/bin/)?env\s+(?:-[!-~]+\s+)*)?(?:/usr)?(?:/bin/)?(?:ba|z|da|k|fi)?sh(?-u:\b)|(?:curl|wget)(?-u:\b)[^\n|]*\|\s*xargs(?-u:\b)[^\n|]*(?:ba|z|da)?sh(?-u:\b)|(?:source|\.)\s+<\(\s*(?:curl|wget)|(?:(?:ba|z|da)?sh|python3?|node|perl|ruby)\s+-[ce]\s+["']?\$\(\s*(?:curl|wget)|(?:iwr|irm|invoke-webrequest|invoke-restmethod)(?-u:\b)[^\n|]*\|\s*iex(?-u:\b)|(?:npx|bunx|pnpm\s+dlx|yarn\s+dlx|uvx|pipx\s+run)\s+(?:-[!-~]+\s+)*(?:https?://|github:|gist:|git\+)|(?:download|fetch|grab|get|pull)(?-u:\b)[ -~]{0,60}?https?://[!-~]+[ -~]{0,30}?(?-u:\b)(?:and|then)\s+(?:then\s+)?(?:run|execute|exec|source|eval)\s+(?:it|that|this|the\s+(?:script|file|binary|payload))(?-u:\b)|(?:python3?|node|perl|ruby|(?:ba|z)?sh)\s+<\(\s*(?:curl|wget)|(?:curl|wget)(?-u:\b)[^\n]*(?:\s(?:-o|-O|--output)\s*|\s*>\s*)[!-~]+[^\n]*(?:&&|;|\n(?:\s*[-*>]\s)?)\s*(?:sudo\s+)?(?:(?:ba|z)?sh|python3?|node|chmod\s+\+x)\s+[!-~]+|(?:curl|wget)(?-u:\b)[^\n]*\|\s*(?:sudo\s+)?(?:python3?|node|perl|ruby|php|iex)(?-u:\b)|(?:ba)?sh\s+<\(\s*(?:curl|wget)|(?:eval|source|\.)\s+"?\$\(\s*(?:curl|wget)|base64\s+(?:-d|--decode|-D)(?-u:\b)[^\n]*\|\s*(?:sudo\s+)?(?:ba|z)?sh(?-u:\b)|echo\s+[a-z0-9+/=]{16,}\s*\|\s*base64|iex\s*\(\s*(?:new-object|\(new-object|iwr|invoke-webrequest)|downloadstring\s*\(|python3?\s+-c\s+[^\n]*(?:urllib|requests)[^\n]*(?:exec|eval)\s*\("#,
    },
    Rule {
        id: "credentials",
        what: "reading or copying credentials or key files",
        keywords: &[
            "output of",
            "env` output",
            ".ssh",
            "id_rsa",
            "id_ed25519",
            "id_ecdsa",
            ".aws/credentials",
            "aws/config",
            ".netrc",
            ".npmrc",
            ".pypirc",
            ".docker/config",
            ".kube/config",
            "/etc/shadow",
            "/etc/passwd",
            "keychain",
            "printenv",
            "credentials",
            ".env",
            "token",
            "secret",
            "private key",
            "gnupg",
            ".git-credentials",
            "env |",
        ],
        pattern: r#"(?:~[a-z_]*|\$\{?home\}?|/home/[a-z0-9_.-]+|/root|%userprofile%)/\.(?:ssh|aws|gnupg|docker|kube|config/gh|netrc|npmrc|pypirc|git-credentials)(?-u:\b)|(?:output\s+of\s+`?(?:env|printenv|set)(?-u:\b)`?|`(?:env|printenv)`\s+output)[ -~\t]{0,60}(?-u:\b)(?:into|to|in)(?-u:\b)|(?-u:\b)id_(?:rsa|ed25519|ecdsa|dsa)(?-u:\b)(?:\.pub)?|\.aws/credentials|/etc/shadow|(?-u:\b)(?:cat|type|print|copy|cp|paste|echo|dump|include|embed|append|attach|upload|send|post|read|export|add|commit|log|output|write)(?-u:\b)[ -\-/-~\t]{0,60}(?:\.env(?-u:\b)|credentials\s+file|(?-u:\b)env(?:ironment)?\s+(?:variables|vars)(?-u:\b)|\$?(?:github|gh|npm|pypi|aws_secret_access|aws_session|openai|anthropic|slack|stripe)_?(?:token|key|api_key|access_key)|api\s+keys?(?-u:\b)|private\s+keys?(?-u:\b)|secrets?(?-u:\b)|tokens?(?-u:\b))[ -~\t]{0,80}(?-u:\b)(?:into|to|in|as\s+part\s+of|inside)\s+(?:the\s+|a\s+|an\s+)?(?:commit|repo|repository|readme|changelog|log|issue|comment|pr(?-u:\b)|pull\s+request|file|md(?-u:\b)|markdown|url|query|webhook|request|body|output|debug|telemetry|ci_debug|gist|paste|message|channel|email)|(?:^|[;&|(]|\$\()\s*(?:printenv|env)\s*(?:\||>\s*[^\s|])|(?-u:\b)process\.env(?-u:\b)[ -~\t]{0,40}(?-u:\b)(?:send|post|fetch|log|write)"#,
    },
    Rule {
        id: "exfiltration",
        what: "sending data to an outside address",
        keywords: &[
            "http",
            "webhook",
            "pastebin",
            "requestbin",
            "ngrok",
            "burpcollaborator",
            "interact.sh",
            "oast",
            "nslookup",
            "dig ",
            "mailto",
            "@",
            "curl",
            "wget",
            "nc ",
            "netcat",
            "scp ",
            "rsync",
            "gist",
        ],
        pattern: r#"(?:curl|wget|http)(?-u:\b)[^\n]*(?:\s-d(?-u:\b)|\s--data(?:-binary|-raw|-urlencode)?(?-u:\b)|\s-f(?-u:\b)|\s--form(?-u:\b)|\s-t(?-u:\b)|\s--upload-file(?-u:\b)|--post-(?:data|file))[^\n]*(?:@|\$\(|\$\{?[a-z_]*(?:token|key|secret|pass|cred|env)|<\s*[~./])|(?:webhook\.site|pastebin\.com|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app)|burpcollaborator|interact\.sh|oast\.(?:pro|live|site|fun|me)|hookbin)|(?-u:\b)(?:nslookup|dig|host)\s+[^\n]*\$\(|(?-u:\b)(?:send|post|upload|forward|email|mail|transmit|report|beacon|ping|exfiltrate|sync|copy|push)(?-u:\b)[ -\-/-~\t]{0,80}(?:(?-u:\b)(?:credentials|secrets?|tokens?|keys?|passwords?|env(?:ironment)?(?:\s+variables)?|source\s+code|the\s+diff|contents?|ssh)(?-u:\b)|\.env(?-u:\b))[ -\-/-~\t]{0,60}(?-u:\b)(?:to|at)\s+(?:https?://|[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}|(?:our|the|an?)\s+(?:external|remote|outside|backup|personal|third-party)\s+)|!\[[^\]\n]*\]\(https?://[^)\s]*\?[^)\s]*=(?:\{|\$|%7b|<)|\|\s*(?:nc|netcat|ncat)\s+[a-z0-9.-]+\s+[0-9]+|(?-u:\b)curl(?-u:\b)[^\n]*\s(?:-t|--upload-file)\s+[!-~]+"#,
    },
    Rule {
        id: "disable-protections",
        what: "disabling a protection",
        keywords: &[
            "--no-verify",
            "git commit",
            "husky",
            "skip=",
            "with --dangerously",
            "hookspath",
            "dangerously",
            "danger-full-access",
            "approval",
            "sandbox",
            "chmod",
            "777",
            "authorized_keys",
            "yolo",
            "disable",
            "turn off",
            "remove the",
            "delete the",
            "skip",
            "bypass",
            "allow-all",
            "pull_request_target",
            "set +e",
            "gitleaks",
            "codeql",
            "secret scanning",
            "branch protection",
            "--force-with",
            "zo approve",
        ],
        pattern: r#"--no-verify(?-u:\b)|(?-u:\b)git\s+commit(?-u:\b)[^\n]*\s-[a-z]*n[a-z]*(?-u:\b)|(?-u:\b)husky\s*=\s*0(?-u:\b)|(?-u:\b)skip\s*=\s*all(?-u:\b)|(?:run|start|launch|invoke)\s+(?:the\s+)?(?:agent|assistant|claude|codex|gemini|yourself)\s+with\s+--dangerously|core\.hookspath\s*(?:=|\s)\s*(?:/dev/null|''|\x22\x22)|(?:always|from\s+now\s+on,?|you\s+(?:should|must|need\s+to)|agents?\s+(?:should|must)|please)\s+(?:run|start|launch|use|pass|invoke|call|execute|restart)(?-u:\b)[ -~\t]{0,40}(?:--dangerously-skip-permissions|--dangerously-bypass-approvals-and-sandbox|--yolo(?-u:\b))|danger-full-access|approval(?:_|-|\s)policy\s*=?\s*\x22?never|(?:(?m:^)\s*(?:[-*]\s+|[0-9]+[.)]\s+|\*\*[^*\n]{1,40}:\*\*\s*)?|(?-u:\b)(?:always|you\s+(?:should|must|can|may)|agents?\s+(?:should|must|may)|please|feel\s+free\s+to)\s+)(?:bypass|skip|disable|turn\s+off|switch\s+off)\s+(?:all\s+|the\s+|every\s+|any\s+)?(?:permission|approval|confirmation|sandbox|safety|security)\s*(?:prompts?|checks?|dialogs?|mode|scans?|scanning)?(?-u:\b)|chmod\s+(?:-r\s+)?(?:0?777|a\+rwx|o\+w)(?-u:\b)|authorized_keys|yolo\s+mode|auto-?(?:approve|run|accept)\s+(?:all|every|any)|(?:disable|remove|delete|turn\s+off|switch\s+off|comment\s+out|uninstall)\s+(?:the\s+|all\s+|our\s+)?(?:pre-commit\s+hooks?|git\s+hooks|commit\s+hooks|secret\s+scan(?:ning|ner)?|gitleaks|codeql|trufflehog|dependabot|branch\s+protection|security\s+(?:scan(?:ning|s)?|checks?|workflow)|signature\s+(?:checks?|verification)|ssl\s+verification|tls\s+verification|certificate\s+verification)|(?-u:\b)pull_request_target(?-u:\b)[^\n]*(?-u:\b)(?:checkout|head\.sha|head_ref)|(?:--insecure|-k)(?-u:\b)[^\n]*\|\s*(?:ba)?sh|git\s+config\s+[^\n]*http\.sslverify\s+false|npm\s+config\s+set\s+strict-ssl\s+false|(?:(?-u:\b)(?:run|execute|call|invoke|type|enter|use)\s+\x60?|(?-u:\b)(?:always|must|should|please|agents?\s+(?:should|must|may)|you\s+(?:should|must|can|may))\s+[^\n]{0,40}?)zo\s+approve(?-u:\b)"#,
    },
    Rule {
        id: "destructive",
        what: "destroying work or faking results",
        keywords: &[
            "find ",
            "git push",
            "regardless",
            "whatever the",
            "rm -rf",
            "rm -fr",
            "rm -r",
            "rm -f",
            "rm --",
            "push -f",
            "push --force",
            "--force",
            "delete all",
            "delete every",
            "drop database",
            "drop table",
            "truncate",
            "reset --hard",
            "mark",
            "fake",
            "fabricat",
            "make up",
            "invent",
            "rewrite the",
            "edit the",
            "change the expected",
            "assert true",
            "skip",
            "xfail",
            "delete the branch",
            "delete branches",
            "wipe",
            "mkfs",
            "dd if=",
        ],
        pattern: r#"rm\s+(?:-(?:rf|fr|r\s+-f|f\s+-r)|--recursive\s+--force|--force\s+--recursive|-r\s+--force|--recursive\s+-f)\s+(?:--no-preserve-root\s+)?["']?(?:/|~|\$\{?home\}?|\*|\.\s|\.$|\.\.|\$\{?[a-z_]+\}?/?["'\s])|(?-u:\b)find\s+(?:/|~|\$\{?home\}?)\s[^\n]*-delete(?-u:\b)|(?-u:\b)git\s+push\s+[!-~]+\s+\+[!-~]+|(?-u:\b)git\s+push(?-u:\b)[^\n]*\s-{1,2}force(?-u:\b)|(?:change|rewrite|update|edit)\s+(?:the\s+)?(?:assertions?|expected\s+values?|tests?)\s+to\s+(?:whatever|match)\s+(?:the\s+)?(?:code|output|actual|implementation)|(?:report|claim|say|state|announce)\s+[ -\-/-~\t]{0,60}(?-u:\b)(?:passing|passed|faster|green|fixed|succeeded|done)(?-u:\b)[ -\-/-~\t]{0,40}(?-u:\b)regardless(?-u:\b)|(?-u:\b)git\s+push\s+(?:[^\n]*\s)?(?:-f|--force|--mirror|--delete|\+)(?:\s|$)[^\n]*(?:main|master|origin|release|all|--all|--tags)?|(?-u:\b)git\s+push\s+[^\n]*--force(?-u:\b)|(?-u:\b)delete\s+(?:all|every|the\s+other)\s+(?:remote\s+)?(?:branches|tags|tests|backups|releases|history|commits|logs)|(?-u:\b)drop\s+(?:database|schema|table)(?-u:\b)[^\n]*(?:prod|production|live|all)|(?:mark|report|flag|record)\s+(?:all\s+|the\s+|any\s+)?(?:failing|failed|broken|red)\s+(?:tests?|checks?|builds?|ci)\s+as\s+(?:passing|passed|green|success)|(?:fake|fabricate|make\s+up|invent|inflate|adjust|massage|hardcode|hard-code)\s+(?:the\s+)?(?:test\s+)?(?:results?|numbers|benchmarks?|metrics|scores|coverage|measurements|figures)|(?:rewrite|change|edit|update)\s+(?:the\s+)?(?:failing\s+)?(?:assertions?|expected\s+values?)\s+(?:so|to\s+match|until)(?-u:\b)[^\n]*(?:pass|green)|assert\s+true\s*(?:#|$)|mkfs\.|(?-u:\b)dd\s+if=[^\n]*of=/dev/|(?:wipe|erase|destroy)\s+(?:the\s+)?(?:disk|database|history|repository|repo|backups)"#,
    },
];

/// The installers projects document as their vendors publish them (`curl -fsSL
/// https://sh.rustup.rs | sh`): a fetch-and-execute whose every URL is on one of these hosts,
/// over https, is a tool's install step, not a directive. Hosts anyone can publish under (raw
/// GitHub content, gists, paste sites) are never on it.
const VENDOR_INSTALLERS: &[&str] = &[
    "claude.ai",
    "sh.rustup.rs",
    "static.rust-lang.org",
    "get.docker.com",
    "bun.sh",
    "astral.sh",
    "install.python-poetry.org",
    "get.pnpm.io",
    "fnm.vercel.app",
    "sdk.cloud.google.com",
    "cli.github.com",
    "opencode.ai",
    "get.helm.sh",
    "tailscale.com",
];

/// Whether every address in a matched fetch-and-execute is on a vendor's installer host, and
/// every URL is https: a host without a scheme counts as an address too.
pub(super) fn vendor_installer(m: &str) -> bool {
    static HOST: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?:([a-z][a-z0-9+.-]*)://)?((?:[a-z0-9-]+\.)+[a-z]{2,})(?:[/:?#]|\s|$|[`'\x22)])",
        )
        .expect("host pattern")
    });
    let mut any = false;
    for c in HOST.captures_iter(m) {
        let host = c.get(2).map_or("", |h| h.as_str());
        let scheme = c.get(1).map(|x| x.as_str());
        // Without a scheme, `install.sh` or `setup.py` is a file name, not a host.
        if scheme.is_none()
            && [".sh", ".py", ".ps1", ".md", ".txt", ".json", ".rs", ".js"]
                .iter()
                .any(|x| host.ends_with(x))
        {
            continue;
        }
        any = true;
        if scheme.is_some_and(|s| s != "https") || !VENDOR_INSTALLERS.contains(&host) {
            return false;
        }
    }
    any
}
