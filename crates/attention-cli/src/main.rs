//! `attention`: the attention weights of a sentence in the terminal, computed
//! by the same core as the web page, and the tool that builds the word-vector
//! subset the page fetches.

// Messages go through `note!`: `eprintln!` panics when stderr is closed.
#![deny(clippy::print_stderr)]

/// Prints a line on stderr, as `eprintln!` does, but a closed stderr (a pipe
/// whose reader has gone, as in `attention … 2>&1 | true`) loses the line
/// instead of panicking before the weights are written.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod build_data;
mod files;
mod heads;
mod model;
mod npy;
mod output;
mod vectors;

use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use attention_core::embeddings::{self, Format};
use attention_core::{analyze, Embeddings, Options};
use clap::{ArgGroup, Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "attention",
    version,
    about = "Scaled dot-product self-attention, softmax(QKᵀ/√d)·V, over GloVe word vectors.",
    long_about = "Prints where each word of a sentence attends, using the raw GloVe 6B 50d \
                  vectors as queries, keys and values (the tutorial setting), scaled by 1/√d (1/√50 for \
                  them).\n\n\
                  Unknown words are listed on stderr and left out of the attention. The vectors are the \
                  whole GloVe vocabulary that scripts/build-data writes into the checkout this binary \
                  was built from, else a built-in fallback of the most frequent words; --embeddings or \
                  ATTENTION_VECTORS name others.\n\n\
                  At most 1,024 known words: attention grows with the square of the length.",
    after_help = "Examples:\n  attention \"The king and queen ruled the kingdom\"\n  \
                  attention --causal --no-self \"The cat sat on the mat\"\n  \
                  attention --json \"The cat sat\" | jq .weights\n  \
                  attention --layer 5 --head 11 \"The cat sat on the mat because it was tired\"\n  \
                  attention build-data --glove glove.6B.50d.txt --shards my-vectors\n\n\
                  A sentence that starts with a command's name (build-data, heads, help) goes after --:\n  \
                  attention -- help me\n\n\
                  Exit status: 0 when the weights were printed (unknown words are listed on stderr), 1 when \
                  the output could not be written, 2 for bad arguments, text, vectors or model files.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
// The trained model's view: --model, --layer and --head, any of them (--words and --no-special need one).
#[command(group(ArgGroup::new("trained").multiple(true)))]
struct RunArgs {
    /// The sentence (several arguments are joined with spaces). Without one, or with -, it is read
    /// from standard input. Put -- before one that starts with build-data, heads or help:
    /// attention -- help me
    sentence: Vec<String>,
    /// A token may not attend to itself (self mask).
    #[arg(long)]
    no_self: bool,
    /// A token may only attend to itself and earlier tokens (causal mask).
    #[arg(long)]
    causal: bool,
    /// Do not divide the scores by √d (watch the softmax saturate).
    #[arg(long)]
    no_scale: bool,
    /// Divide the scores by T before the softmax: T < 1 sharpens, T > 1 flattens (0.001 to 1000).
    // Hyphen values, so that -inf gets the range message too (clap takes it for a flag otherwise).
    // Kept as typed, for the message: "1e-50" read as an f32 is 0, and "got 0" named a number not given.
    #[arg(long, value_name = "T", default_value = "1", allow_hyphen_values = true)]
    temperature: String,
    /// Print one JSON object: tokens, their spans (byte ranges of the sentence in UTF-8), weights (row i =
    /// query token i), scores, scaled scores, unknown words.
    #[arg(long)]
    json: bool,
    /// Word vectors to use: a shard folder (scripts/build-data), a subset file (.aewv), or a
    /// GloVe or word2vec text file of any dimension. Default: $ATTENTION_VECTORS, else the whole
    /// GloVe vocabulary built in this checkout, else the built-in fallback.
    #[arg(long, value_name = "PATH")]
    embeddings: Option<PathBuf>,
    /// Show a trained transformer's attention instead: all-MiniLM-L6-v2 from DIR (built by
    /// scripts/build-model). Default with --layer and --head: the model/ of this checkout.
    #[arg(long, value_name = "DIR", group = "trained", conflicts_with_all = GLOVE_ONLY)]
    model: Option<PathBuf>,
    /// The trained model's layer to print (0 to 5), with --head.
    // Signed, so that -1 gets the range message rather than clap's "invalid digit".
    #[arg(long, value_name = "L", group = "trained", conflicts_with_all = GLOVE_ONLY, allow_negative_numbers = true)]
    layer: Option<i64>,
    /// The trained model's head to print (0 to 11), with --layer.
    #[arg(long, value_name = "H", group = "trained", conflicts_with_all = GLOVE_ONLY, allow_negative_numbers = true)]
    head: Option<i64>,
    /// With the trained model: whole words instead of WordPiece pieces (attention summed over a
    /// word's key pieces and averaged over its query pieces).
    #[arg(long, requires = "trained")]
    words: bool,
    /// With the trained model: leave out [CLS] and [SEP] (rows then sum to what did not go to them).
    #[arg(long, requires = "trained")]
    no_special: bool,
}

/// The options of the GloVe attention, which the trained model's view does not take.
const GLOVE_ONLY: [&str; 4] = ["no_self", "causal", "no_scale", "embeddings"];

#[derive(Debug, Subcommand)]
enum Command {
    /// Build the shard set of a whole vocabulary, a subset file (.aewv), or both, from full GloVe vectors.
    BuildData(build_data::BuildArgs),
    /// Rank every head of the trained model by the weight from one word to another:
    /// attention heads "The cat sat on the mat because it was tired" --from it --to cat
    Heads(heads::HeadsArgs),
}

/// An error ready to be printed as one line, with the exit code to use.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl Failure {
    pub fn usage(message: impl Into<String>) -> Self {
        Failure { message: message.into(), code: 2 }
    }
}

impl From<attention_core::Error> for Failure {
    fn from(error: attention_core::Error) -> Self {
        Failure::usage(error.to_string())
    }
}

/// The commands' names: a sentence that starts with one must follow `--`.
const COMMANDS: [&str; 3] = ["build-data", "heads", "help"];

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return clap_exit(&with_sentence_tip(error)),
    };
    let result = match cli.command {
        Some(Command::BuildData(args)) => build_data::run(&args),
        Some(Command::Heads(args)) => heads::run(&args),
        None => run(&cli.run),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            note!("attention: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

/// Prints clap's help, version or error as `clap::Error::exit` does, but a
/// help that cannot be written (`attention --help > /dev/full`) fails as the
/// weights do, rather than exiting 0 with nothing printed.
fn clap_exit(error: &clap::Error) -> ExitCode {
    let code = u8::try_from(error.exit_code()).unwrap_or(2);
    match output::finish(error.print()) {
        Ok(()) => ExitCode::from(code),
        Err(failure) => {
            note!("attention: {}", failure.message);
            ExitCode::from(failure.code.max(code))
        }
    }
}

/// `attention help me` is the help command asked about a command "me", and
/// `attention heads up` the heads command without its flags: when the
/// arguments look like a sentence that happens to start with a command's
/// name (nothing after the name is a flag), clap's error says how to write it.
fn with_sentence_tip(mut error: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if matches!(error.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return error;
    }
    let args: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let Some(at) = args.iter().position(|a| !a.starts_with('-')) else { return error };
    let rest = &args[at + 1..];
    if !COMMANDS.contains(&args[at].as_str()) || rest.is_empty() || rest.iter().any(|a| a.starts_with("--")) {
        return error;
    }
    let command = &args[at];
    let tip = format!(
        "for the attention of a sentence that starts with '{command}', put -- before it: attention -- {command} …"
    );
    let mut tips = match error.get(ContextKind::Suggested) {
        Some(ContextValue::StyledStrs(tips)) => tips.clone(),
        _ => Vec::new(),
    };
    tips.push(tip.into());
    error.insert(ContextKind::Suggested, ContextValue::StyledStrs(tips));
    error
}

/// The most that is read from standard input: far more text than the 1,024
/// words that are analysed.
const MAX_STDIN_BYTES: u64 = 4 << 20;

/// The sentence: the arguments, else (none, or `-`) standard input when it
/// is not a terminal; an empty one gets a message that says which was empty.
fn sentence_of(args: &[String]) -> Result<String, Failure> {
    let piped = !io::stdin().is_terminal();
    if !(args.is_empty() && piped || args == ["-"]) {
        let sentence = args.join(" ");
        if sentence.trim().is_empty() {
            return Err(Failure::usage(format!("the sentence is empty: {EMPTY_TIP}")));
        }
        return Ok(sentence);
    }
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .take(MAX_STDIN_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::usage(format!("cannot read standard input: {e}")))?;
    if bytes.len() as u64 > MAX_STDIN_BYTES {
        return Err(Failure::usage(format!(
            "standard input holds more than {} MiB: at most 1,024 words are analysed",
            MAX_STDIN_BYTES >> 20
        )));
    }
    let sentence = String::from_utf8(bytes).map_err(|e| {
        Failure::usage(format!("standard input is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
    })?;
    if sentence.trim().is_empty() {
        return Err(Failure::usage(
            "standard input holds no sentence: pipe one in, or give it as arguments: attention \"The king and queen ruled the kingdom\"",
        ));
    }
    Ok(sentence)
}

/// The temperature `typed`, in the core's range; a message names it as typed.
fn temperature_of(typed: &str) -> Result<f32, Failure> {
    let t: f32 = typed.trim().parse().map_err(|_| {
        Failure::usage(format!("--temperature takes a number, not {}", attention_core::error::quote(typed)))
    })?;
    attention_core::attention::check_temperature(t, &typed.trim())?;
    Ok(t)
}

/// What the message for an empty sentence suggests.
const EMPTY_TIP: &str =
    "try attention \"The king and queen ruled the kingdom\", or give it on standard input";

fn run(args: &RunArgs) -> Result<(), Failure> {
    let sentence = sentence_of(&args.sentence)?;
    let temperature = temperature_of(&args.temperature)?;
    if args.model.is_some() || args.layer.is_some() || args.head.is_some() {
        let dir = model::dir_of(args.model.as_deref())?;
        if temperature != 1.0 {
            return Err(Failure::usage("--temperature applies to the GloVe attention, not to --model"));
        }
        let request = model::ModelRequest {
            dir,
            sentence: &sentence,
            layer: args.layer,
            head: args.head,
            words: args.words,
            no_special: args.no_special,
            json: args.json,
        };
        let stdout = io::stdout();
        let mut out = stdout.lock();
        return model::run(&request, &mut out);
    }
    let options =
        Options { scale: !args.no_scale, temperature, self_attention: !args.no_self, causal: args.causal };
    options.validate()?;
    let vectors = vectors::load(args.embeddings.as_deref(), &[&sentence])?;
    // On the fallback, unknown words may well be known to the whole
    // vocabulary: both messages about them say how to build it.
    let hint = if vectors.fallback { FALLBACK_HINT } else { "" };
    let analysis = analyze(&sentence, &vectors.embeddings, &options).map_err(|e| match e {
        attention_core::Error::NoKnownWords { .. } => Failure::usage(format!("{e}{hint}")),
        e => Failure::from(e),
    })?;

    // Each unknown word once, in the order the sentence has them ('xqzv' 5,000 times was listed 8 times).
    let mut seen = std::collections::HashSet::new();
    let unknown: Vec<&str> =
        analysis.unknown_tokens().map(|t| t.text.as_str()).filter(|w| seen.insert(*w)).collect();
    if !unknown.is_empty() {
        let size = vectors.embeddings.vocabulary_size();
        note!(
            "attention: not in the {}vocabulary of {} word{}, left out: {}{hint}",
            if vectors.fallback { "fallback " } else { "" },
            attention_core::error::grouped(size),
            if size == 1 { "" } else { "s" },
            attention_core::error::quote_list(&unknown)
        );
    }

    let stdout = io::stdout();
    let mut out = stdout.lock();
    let written = if args.json {
        output::write_json(&mut out, &analysis)
    } else {
        output::write_text(&mut out, &analysis)
    };
    output::finish(written.and_then(|()| out.flush()))
}

/// Said after the unknown words when the vectors are a fallback.
const FALLBACK_HINT: &str =
    " (this is the fallback of the most frequent words: scripts/build-data builds all 400,000 GloVe words)";

/// Reads a subset file or a GloVe text file, streaming the text format.
pub fn load_embeddings(path: &Path) -> Result<Embeddings, Failure> {
    let cannot = |e: io::Error| Failure::usage(format!("cannot read '{}': {e}", path.display()));
    let mut file = File::open(path).map_err(cannot)?;
    let mut head = [0u8; 4096];
    let got = read_up_to(&mut file, &mut head).map_err(cannot)?;
    let head = &head[..got];
    let embeddings = match embeddings::sniff(head) {
        Format::Subset => {
            let mut bytes = head.to_vec();
            file.read_to_end(&mut bytes).map_err(cannot)?;
            Embeddings::from_subset(&bytes)
        }
        Format::GloveText => Embeddings::read_glove_text(BufReader::new(head.chain(file))).map(|(embeddings, notes)| {
            if let (count @ 1.., Some(first)) = (notes.skipped, notes.first_skipped) {
                note!(
                    "attention: {}: {count} line{} left out (line {first} first): a word with spaces, which no word of a sentence can be, or a line that is not UTF-8 text",
                    path.display(),
                    if count == 1 { "" } else { "s" }
                );
            }
            if let Some((promised, held)) = notes.cut_short {
                note!(
                    "attention: {}: the header says {promised} words, the file holds {held}: cut short (by head, say), it is read as it is",
                    path.display()
                );
            }
            embeddings
        }),
        // The manifest is what a shard set's folder shows first; the folder is what to name.
        Format::Unknown if path.file_name().is_some_and(|name| name == "manifest.json") => {
            let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            return Err(Failure::usage(format!(
                "'{}' is the manifest of a shard set, not a file of vectors: name the folder that holds it, '{}'",
                path.display(),
                folder.display()
            )));
        }
        Format::Unknown => Err(embeddings::unknown_format(head)),
    };
    embeddings.map_err(|e| Failure::usage(format!("{}: {e}", path.display())))
}

fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}
