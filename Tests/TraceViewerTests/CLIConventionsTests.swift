import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import trace_view

/// What a command-line user expects of a tool, as git and kubectl do it: `-V`, "did you mean",
/// `--color`, shell completion and a man page made from the command registry, and a `--help` on
/// every script of the repository.
@Suite struct CLIConventionsTests {
    static let demo = fixtures + "/demo.jsonl"

    /// Long output on a terminal goes through `$PAGER` (here a command that keeps what it reads),
    /// never with `--no-pager` or in a pipe; with no `PAGER`, `less` holds a text longer than the
    /// screen until `q` and prints a short one as it is (`LESS=FRX`), the status kept.
    @Test(.enabled(if: Tmux.available), .timeLimit(.minutes(Patience.minutes(3))))
    func longOutputOnATerminalIsPaged() async throws {
        let paged = Tmux.Session()
        defer { paged.stop() }
        let kept = paged.dir.file("paged.txt")
        try paged.run("tasks \(Self.demo)", environment: "PAGER='cat > \(kept)'", columns: 100, rows: 30)
        #expect(try await paged.ended().status == 0)
        let text = try String(contentsOfFile: kept, encoding: .utf8)
        #expect(text.contains("refresh #2") && text.contains("cancelled (replaced)"), "\(text)")
        #expect(!(try paged.screen()).contains("refresh #2"), "the pager was passed over")

        let unpaged = Tmux.Session()
        defer { unpaged.stop() }
        let none = unpaged.dir.file("paged.txt")
        try unpaged.run("tasks --no-pager \(Self.demo)", environment: "PAGER='cat > \(none)'", columns: 100, rows: 30)
        #expect(try await unpaged.ended().status == 0)
        #expect(try unpaged.screen().contains("refresh #2") && !FileManager.default.fileExists(atPath: none))

        let piped = try await traceView(["tasks", Self.demo], environment: ["PAGER": "cat > \(none)"])
        #expect(piped.status == 0 && piped.out.contains("refresh #2") && !FileManager.default.fileExists(atPath: none))

        guard Subprocess.which("less") != nil else { return }
        let long = Tmux.Session()
        defer { long.stop() }
        try long.run("sequence \(Self.demo)", environment: "env -u PAGER -u LESS", columns: 100, rows: 20)
        // less shows the first screen and waits (its prompt on the last row) until q.
        let first = try await long.screen(containing: "dispatch #1 ")
        #expect(first.split(separator: "\n").last?.hasPrefix(":") == true, "\(first)")
        try long.keys("q")
        #expect(try await long.ended().status == 0)
        let short = Tmux.Session()
        defer { short.stop() }
        try short.run("summary \(Self.demo)", environment: "env -u PAGER -u LESS", columns: 100, rows: 40)
        #expect(try await short.ended().status == 0)
        #expect(try short.screen().contains("runtime"))
    }

    @Test func aTypoGetsASuggestion() async throws {
        for (arguments, suggestion) in [
            (["sumary", Self.demo], "did you mean 'summary'?"), (["expotr", Self.demo], "did you mean 'export'?"),
            (["slow", "--formt", "json", Self.demo], "did you mean '--format'?"),
            (["tasks", "--runtim", "1", Self.demo], "did you mean '--runtime'?"),
        ] {
            let run = try await traceView(arguments)
            #expect(run.status == 64 && run.err.contains(suggestion), "\(arguments): \(run.err)")
        }
        let far = try await traceView(["xyzzy", Self.demo])
        #expect(far.status == 64 && !far.err.contains("did you mean"), "\(far.err)")
        #expect(Suggestion.closest(to: "contnetion", among: ["contention", "check"]) == "contention")
        #expect(Suggestion.closest(to: "q", among: ["contention", "check"]) == nil)
    }

    @Test func shortVersionIsTheVersion() async throws {
        let short = try await traceView(["-V"])
        let long = try await traceView(["--version"])
        #expect(short.status == 0 && short.out == long.out && short.out.hasPrefix("trace-view "))
    }

    /// `--color always` draws colour even in a pipe; never and --no-color draw none.
    @Test func colorIsAskedFor() async throws {
        let always = try await traceView(["slow", "--color", "always", Self.demo])
        #expect(always.status == 0 && always.out.contains("\u{1B}["), "no SGR with --color always")
        for off in [["--color", "never"], ["--no-color"], []] {
            let run = try await traceView(["slow"] + off + [Self.demo])
            #expect(run.status == 0 && !run.out.contains("\u{1B}["), "\(off)")
        }
        let both = try await traceView(["slow", "--color", "always", "--no-color", Self.demo])
        #expect(both.status == 64)
        let wrong = try await traceView(["slow", "--color", "sometimes", Self.demo])
        #expect(wrong.status == 64 && wrong.err.contains("auto, always or never"))
    }

    /// The bash script, loaded by bash, completes a command, an option and an option's value.
    @Test(.enabled(if: Subprocess.which("bash") != nil)) func bashCompletes() async throws {
        let dir = TemporaryDirectory()
        let script = dir.file("trace-view.bash")
        let made = try await traceView(["completion", "bash"])
        try #require(made.status == 0)
        try made.out.write(toFile: script, atomically: true, encoding: .utf8)
        func complete(_ words: [String]) async throws -> [String] {
            let line = words.map { "'\($0)'" }.joined(separator: " ")
            let program =
                "source '\(script)'; COMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1); _trace_view; printf '%s\\n' \"${COMPREPLY[@]}\""
            let bash = try #require(Subprocess.which("bash"))
            let run = try await offThePool {
                try Subprocess.run(bash, ["--norc", "-c", program], output: .captureSeparately, timeout: 30)
            }
            #expect(run.status == 0, "\(run.errors)")
            return run.output.split(separator: "\n").map(String.init)
        }
        #expect(try await complete(["trace-view", "su"]) == ["summary"])
        #expect(try await complete(["trace-view", "slow", "--fo"]) == ["--format"])
        #expect(try await complete(["trace-view", "export", "--format", "pe"]) == ["perfetto"])
        #expect(try await complete(["trace-view", "slow", "--format", "j"]) == ["json"])
        #expect(try await complete(["trace-view", "slow", "--color", ""]).sorted() == ["always", "auto", "never"])
        let other = try await traceView(["completion", "tcsh"])
        #expect(other.status == 64)
    }

    /// zsh (through bashcompinit) and fish load their scripts without an error, where installed.
    @Test(arguments: ["zsh", "fish"]) func otherShellsLoadTheirScripts(_ shell: String) async throws {
        guard let path = Subprocess.which(shell) else { return }
        let dir = TemporaryDirectory()
        let script = dir.file("trace-view.\(shell)")
        try (try await traceView(["completion", shell])).out.write(toFile: script, atomically: true, encoding: .utf8)
        let program =
            shell == "fish"
            ? "source '\(script)'; complete -C 'trace-view su'" : "autoload -U compinit; compinit -u; source '\(script)'"
        let run = try await offThePool { try Subprocess.run(path, ["-c", program], output: .captureSeparately, timeout: 30) }
        #expect(run.status == 0, "\(run.errors)")
        if shell == "fish" { #expect(run.output.contains("summary"), "\(run.output)") }
    }

    /// `man -l` renders the page with no warning, naming every command and exit status.
    @Test(.enabled(if: Subprocess.which("man") != nil)) func theManPageRenders() async throws {
        let dir = TemporaryDirectory()
        let page = dir.file("trace-view.1")
        let made = try await traceView(["man"])
        try #require(made.status == 0)
        try made.out.write(toFile: page, atomically: true, encoding: .utf8)
        #expect(made.out.unicodeScalars.allSatisfy { $0.isASCII }, "roff is ASCII")
        let man = try #require(Subprocess.which("man"))
        let run = try await offThePool {
            try Subprocess.run(
                man, ["-l", page], environment: ["MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"],
                output: .captureSeparately, timeout: 60)
        }
        #expect(run.status == 0 && run.errors.isEmpty, "\(run.errors)")
        for command in Registry.commands.map({ $0.spec.name }) {
            #expect(run.output.contains("trace-view \(command)"), "\(command)")
        }
        #expect(run.output.contains("EXIT STATUS") && run.output.contains("spansRejected") == false)
        #expect(run.output.contains("the collector rejected some spans"))
    }

    /// Every script of the repository answers --help (its header), with no traceback.
    @Test func everyScriptAnswersHelp() async throws {
        let root = Repository.root
        let scripts =
            try FileManager.default.contentsOfDirectory(atPath: root + "/scripts").filter {
                ($0.hasSuffix(".sh") || $0.hasSuffix(".py"))
                    && (try? String(contentsOfFile: root + "/scripts/" + $0, encoding: .utf8))?.hasPrefix("#!") == true
            }.map { "scripts/" + $0 } + ["Benchmarks/callgrind.sh"]
        #expect(scripts.count > 15)
        for script in scripts {
            let interpreter = try #require(Subprocess.which(script.hasSuffix(".py") ? "python3" : "bash"))
            let run = try await offThePool {
                try Subprocess.run(interpreter, [root + "/" + script, "--help"], output: .captureSeparately, timeout: 60)
            }
            #expect(run.status == 0 && run.output.count > 40, "\(script): \(run.status) \(run.errors)")
            #expect(!run.errors.contains("Traceback"), "\(script): \(run.errors)")
        }
    }
}
