import Foundation
import Testing
import TraceTooling
import TransduceTestSupport
import TransduceTraceCTF

@testable import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `trace-view tui` driven in a real terminal: tmux on a server of its own, keys sent with
/// `send-keys`, screens read with `capture-pane` and compared with golden files; the terminal's
/// settings (`stty -a`) must be the same before and after, however the UI is left. The waits
/// sleep asynchronously: a test that blocked a thread of the two-thread pool while it polls
/// would starve the runtime's async tests.
@Suite(.serialized) struct TUITests {

    let demo = fixtures + "/demo.jsonl"

    @Test(.enabled(if: Tmux.available), .timeLimit(.minutes(Patience.minutes(3))))
    func screensKeysAndAResizeMatchTheGoldens() async throws {
        let session = Tmux.Session()
        defer { session.stop() }
        try session.start(demo)
        try expectGolden(try await session.loadedScreen(containing: "admission wait"), "tui-start.txt")
        try session.keys("j", "j")
        try expectGolden(try await session.loadedScreen(containing: "> 15 "), "tui-moved.txt")
        try session.keys("Enter")
        // The list's detail already shows the breakdown: the diagram's own footer says it opened.
        try expectGolden(
            try await session.loadedScreen(containing: "Latency of send(ping) dispatch #15", "Esc back"), "tui-request.txt")
        try session.keys("Escape", "/", "r", "e", "f", "Enter")
        try expectGolden(try await session.loadedScreen(containing: "filter \"ref\""), "tui-filter.txt")
        try session.keys("Tab")
        try expectGolden(try await session.loadedScreen(containing: "[Tasks]"), "tui-tasks.txt")
        _ = try session.tmux(["resize-window", "-t", "ui", "-x", "80", "-y", "40"])
        // Drawn again for 80 columns: the header gives up the command's name, not the panes,
        // and cuts nothing.
        let narrow = try await session.loadedScreen(containing: "demo.jsonl | 128 events, 0 lost |  Requests [Tasks]")
        #expect(narrow.split(separator: "\n").allSatisfy { $0.count <= 80 })
        try expectGolden(narrow, "tui-80-columns.txt")
        // Sorted by run time (the fourth sortable column), longest first.
        try session.keys("s", "s", "s", "s", "S")
        try expectGolden(try await session.loadedScreen(containing: "ran ▼"), "tui-sorted.txt")
        // At 200 columns the names and causes get the room; the sort stays.
        _ = try session.tmux(["resize-window", "-t", "ui", "-x", "200", "-y", "50"])
        // (The detail beside the list, which 80 columns put below it, says it is redrawn.)
        let wide = try await session.loadedScreen(containing: "Warnings (0)  | ? keys", "│task #3 refresh")
        #expect(wide.split(separator: "\n").allSatisfy { $0.count <= 200 })
        try expectGolden(wide, "tui-200-columns.txt")
        try session.keys("?")
        _ = try await session.screen(containing: "Keys")
        try session.keys("q")
        let (status, restored) = try await session.ended()
        #expect(status == 0)
        #expect(restored, "stty -a differs after q")
    }

    /// Every pane with its detail, at 200 × 50 (beside the list) and at 80 × 24 (no room: Enter
    /// opens a request's diagram, a task's or a gate's detail on the whole screen, a warning's
    /// row), on the demo cut before its last task settled (a request still waiting, a task never
    /// settled, so a warning).
    @Test(.enabled(if: Tmux.available), .timeLimit(.minutes(Patience.minutes(3))), arguments: [(200, 50), (80, 24)])
    func everyPaneWithItsDetailMatchesTheGoldens(columns: Int, rows: Int) async throws {
        let session = Tmux.Session()
        defer { session.stop() }
        let events = try JSONLinesReader(path: demo).readAll().events
        let lastSettle = try #require(events.lastIndex { $0.kind == .taskSettle })
        let path = session.dir.file("demo-cut.jsonl")
        try TraceFileWriter.write(Trace(events: Array(events[..<lastSettle])), to: path, format: .jsonLines)
        try session.start(path, columns: columns, rows: rows)
        let name = { (pane: String) in "tui-\(columns)x\(rows)-\(pane).txt" }
        let wide = columns >= 160
        func check(_ screen: String, _ golden: String) throws {
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.allSatisfy { $0.count <= columns }, "\(golden): wider than \(columns)")
            try expectGolden(screen, name(golden))
        }
        // The request still waiting comes first; its diagram beside the list, or on Enter.
        try check(
            try await session.loadedScreen(containing: "waiting", wide ? "request #11 refresh" : "Enter diagram"), "requests")
        if !wide {
            try session.keys("Enter")
            try check(try await session.loadedScreen(containing: "request #11 refresh", "Esc back"), "requests-diagram")
            try session.keys("Escape")
            _ = try await session.screen(containing: "Enter diagram")
        }
        try session.keys("Tab")
        try check(try await session.loadedScreen(containing: "[Tasks]", wide ? "spawned by   load" : "Enter detail"), "tasks")
        if !wide {
            try session.keys("Enter")
            try check(try await session.loadedScreen(containing: "spawned by   load", "Esc back"), "tasks-detail")
            try session.keys("Escape")
            _ = try await session.screen(containing: "[Tasks]", "Enter detail")
        }
        try session.keys("Tab")
        try check(try await session.loadedScreen(containing: "[Gate]", wide ? "deepest queue" : "Enter detail"), "gate")
        if !wide {
            try session.keys("Enter")
            try check(try await session.loadedScreen(containing: "deepest queue", "Esc back"), "gate-detail")
            try session.keys("Escape")
            _ = try await session.screen(containing: "[Gate]", "Enter detail")
        }
        try session.keys("Tab")
        try check(
            try await session.screen(containing: "[Warnings (1)]", wide ? "Enter opens the task it names" : "Enter opens"),
            "warnings")
        // Enter on the warning selects the task it names, in the tasks pane.
        try session.keys("Enter")
        let named = try await session.screen(containing: "[Tasks]", "> ")
        #expect(named.contains("running"), "\(named)")
        try session.keys("q")
        let (status, restored) = try await session.ended()
        #expect(status == 0)
        #expect(restored)
    }

    /// The demo as a binary trace file: the requests' largest parts and a request's diagram are
    /// read through the file's index (built in the pass that reads the file for the first
    /// screen, kept beside it), and are the same screen.
    /// In the terminal's colours (24-bit where `COLORTERM` says so): the header bold with the
    /// focused pane and the selection in reverse video, a diagram in `sequence`'s tints; with
    /// `NO_COLOR` or `--no-color`, not one escape sequence. At 80 × 24 and 200 × 50, the same
    /// screens as without colour.
    @Test(.enabled(if: Tmux.available), .timeLimit(.minutes(Patience.minutes(3))), arguments: [(80, 24), (200, 50)])
    func theScreenIsInTheTerminalsColours(columns: Int, rows: Int) async throws {
        let coloured = Tmux.Session()
        defer { coloured.stop() }
        // (Whatever the test runner's environment says of colour.)
        try coloured.start(
            demo, environment: "env -u NO_COLOR TERM=xterm-256color COLORTERM=truecolor", columns: columns, rows: rows)
        let plain = try await coloured.loadedScreen(containing: "admission wa")
        let screen = try coloured.tmux(["capture-pane", "-p", "-e", "-t", "ui"])
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // (tmux writes each cell's attributes as it stores them: `ESC[0;7m`, then the colours it
        // resets, `ESC[39m ESC[49m`.)
        func starts(_ code: String, _ text: String) -> Regex<AnyRegexOutput> {
            try! Regex("\u{1B}\\[(?:0;)?\(code)m(?:\u{1B}\\[[0-9;]*m)*" + NSRegularExpression.escapedPattern(for: text))
        }
        #expect(lines[0].prefixMatch(of: starts("1", "")) != nil, "\(lines[0])")
        #expect(lines[0].contains(starts("7", "[Requests]")), "\(lines[0])")
        #expect(lines.filter { $0.contains(starts("7", "> ")) }.count == 1, "the selection is not in reverse video")
        #expect(lines[1].prefixMatch(of: starts("2", "─")) != nil, "the rule is not faint")
        // Without its colour the screen is the plain one.
        let stripped = screen.replacing(#/\x{1B}\[[0-9;]*m/#, with: "")
        #expect(
            stripped.split(separator: "\n").map { String($0).trimmingTrailing() }
                == plain.split(separator: "\n").map { String($0).trimmingTrailing() })
        try coloured.keys("Enter")
        _ = try await coloured.loadedScreen(containing: "Esc back")
        let diagram = try coloured.tmux(["capture-pane", "-p", "-e", "-t", "ui"])
        for tint in [RenderOptions.Tint.dispatch, .gate] {
            #expect(diagram.contains("\u{1B}[\(tint.code(.truecolor))m"), "no \(tint) in 24-bit colour")
        }
        for (environment, flags) in [
            ("NO_COLOR=1 TERM=xterm-256color", ""), ("env -u NO_COLOR TERM=xterm-256color", "--no-color "),
        ] {
            let bare = Tmux.Session()
            defer { bare.stop() }
            try bare.run("tui \(flags)\(demo)", environment: environment, columns: columns, rows: rows)
            _ = try await bare.loadedScreen(containing: "admission wa")
            let screen = try bare.tmux(["capture-pane", "-p", "-e", "-t", "ui"])
            #expect(!screen.contains("\u{1B}"), "\(environment) \(flags): \(screen.prefix(200))")
        }
    }

    @Test(.enabled(if: Tmux.available), .timeLimit(.minutes(Patience.minutes(3))))
    func aTraceFilesDiagramComesThroughItsIndex() async throws {
        let session = Tmux.Session()
        defer { session.stop() }
        // The same name as the demo's (the title shows it), binary inside.
        let path = session.dir.file("demo.jsonl")
        try TraceFileWriter.write(try JSONLinesReader(path: demo).readAll(), to: path)
        // No index before the viewer opens the file (checked before it starts: checked after,
        // the check raced the viewer, which can read 128 events and keep their index first).
        #expect(!FileManager.default.fileExists(atPath: TraceFileIndex.sidecarPath(of: path)))
        try session.start(path)
        // A largest part is shown once the file is read: read through the index that pass kept.
        _ = try await session.screen(containing: "admission wait")
        #expect(FileManager.default.fileExists(atPath: TraceFileIndex.sidecarPath(of: path)))
        try session.keys("j", "j", "Enter")
        try expectGolden(
            try await session.loadedScreen(containing: "Latency of send(ping) dispatch #15", "Esc back"), "tui-request.txt")
        try session.keys("q", "q")
        let (status, restored) = try await session.ended()
        #expect(status == 0)
        #expect(restored)
    }

    /// A trace long enough to take a while: the screen shows what has been read while it is
    /// read ("reading" in the header, rows already there), then the whole: the same requests, in
    /// the same order, as the panes printed in a pipe, which read the whole file first.
    @Test(.enabled(if: Tmux.available), .timeLimit(.minutes(Patience.minutes(3))))
    func aLongTraceShowsItsFirstRowsWhileItIsRead() async throws {
        let session = Tmux.Session()
        defer { session.stop() }
        // The demo as 1,500 processes (each copy's runtime in a process of its own).
        // Made and written off the concurrency pool (seconds of CPU in a debug build).
        let path = session.dir.file("long.tdtrace")
        let count = try await offThePool {
            let demoEvents = try JSONLinesReader(path: demo).readAll().events
            var events: [TraceEvent] = []
            for copy in 0..<1_500 as Range<UInt32> {
                events += demoEvents.map { e in
                    var e = e
                    e.process = 50_000 + copy
                    return e
                }
            }
            try TraceFileWriter.write(Trace(events: events), to: path)
            return events.count
        }
        // The reading holds after its first preview until told to go on (BrowserFeed.hold): on a
        // busy machine the file was read whole before any capture of the screen.
        let goOn = session.dir.file("go-on")
        try session.start(path, environment: "TRACE_VIEW_TUI_HOLD=\(goOn)")
        let reading = try await session.screen(containing: "| reading", "(pid ")
        #expect(!reading.contains("admission wait"), "the largest parts come once the whole is read")
        #expect(FileManager.default.createFile(atPath: goOn, contents: nil))
        let whole = try await session.screen(containing: "admission wait")
        #expect(whole.contains("| \(count) events, 1500 runtimes, 0 lost |"), "\(whole)")
        try session.keys("q")
        let (status, _) = try await session.ended()
        #expect(status == 0)
        // The requests' order (runtime and dispatch of each row) is the printed panes'.
        let printed = try await traceView(["tui", path], columns: nil)
        let ids = { (text: String) in
            text.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ").filter { $0 != ">" }
                guard words.count > 4, words[1] == "(pid" else { return nil }
                return words[0...3].joined(separator: " ")
            }
        }
        let shown = ids(whole)
        // Half the 40 rows: the selected request's detail has the other half.
        #expect(shown.count > 12)
        #expect(Array(ids(printed.out).prefix(shown.count)) == shown)
    }

    /// Hostile and wide labels (``LabelCorpusTests``) in the real terminal: shown escaped, the
    /// wide ones whole, and the pane's title never set by the OSC one. (The rows' widths are
    /// checked where they are not already cut by the terminal: ``LabelCorpusTests``, `tui` in a
    /// pipe.)
    @Test(.enabled(if: Tmux.available), .timeLimit(.minutes(Patience.minutes(3))))
    func hostileLabelsDoNotDriveTheTerminal() async throws {
        let session = Tmux.Session()
        defer { session.stop() }
        try session.start(LabelCorpusTests.corpus)
        _ = try await session.screen(containing: "\\x1b]0;pwned")
        try session.keys("Tab")
        let tasks = try await session.screen(containing: "[Tasks]")
        #expect(tasks.contains("注文を読"), "\(tasks)")
        let paneTitle = try session.tmux(["display-message", "-p", "-t", "ui", "#{pane_title}"])
        #expect(!paneTitle.contains("pwned"), "the pane's title was set: \(paneTitle)")
        try session.keys("q")
        let (status, restored) = try await session.ended()
        #expect(status == 0)
        #expect(restored)
    }

    /// A damaged input says so in the browser's header and, on leaving, on standard error with
    /// exit 65, as it does in a pipe (it said "0 lost" and exited 0).
    @Test(.enabled(if: Tmux.available), .timeLimit(.minutes(Patience.minutes(3))))
    func aDamagedInputIsToldOnScreenAndByTheExitStatus() async throws {
        let session = Tmux.Session()
        defer { session.stop() }
        let damaged = session.dir.file("damaged.jsonl")
        try (String(contentsOfFile: demo, encoding: .utf8) + "{\"kind\":\"dispatch\",\"time\":\n").write(
            toFile: damaged, atomically: true, encoding: .utf8)
        try session.start(damaged)
        _ = try await session.screen(containing: "damaged input: 1 note on exit")
        try session.keys("q")
        let (status, restored) = try await session.ended()
        #expect(status == 65)
        #expect(restored)
        let piped = try await traceView(["tui", damaged])
        #expect(piped.status == 65, "\(piped.err)")
    }

    @Test(.enabled(if: Tmux.available), .timeLimit(.minutes(Patience.minutes(3))))
    func ctrlCQuitsAndPutsTheTerminalBack() async throws {
        let session = Tmux.Session()
        defer { session.stop() }
        try session.start(demo)
        _ = try await session.screen(containing: "admission wait")
        try session.keys("Enter")
        _ = try await session.screen(containing: "Latency of")
        try session.keys("C-c")
        let (status, restored) = try await session.ended()
        #expect(status == 0)
        #expect(restored, "stty -a differs after Ctrl-C")
    }

    /// Killed from outside (as a crash would end it), the UI still puts the terminal back.
    @Test(.enabled(if: Tmux.available), .timeLimit(.minutes(Patience.minutes(3))))
    func aTerminatedUIPutsTheTerminalBack() async throws {
        let session = Tmux.Session()
        defer { session.stop() }
        try session.start(demo)
        _ = try await session.screen(containing: "admission wait")
        // The pane's shell runs the UI as its child: that child, and nothing of other tests.
        let shell = try session.tmux(["display-message", "-p", "-t", "ui", "#{pane_pid}"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try Subprocess.run("/usr/bin/pgrep", ["-P", shell], output: .capture, timeout: 30).output
        let ui = try #require(children.split(separator: "\n").compactMap { Int32($0) }.first, "no UI process")
        #expect(kill(ui, SIGTERM) == 0)
        let (status, restored) = try await session.ended()
        #expect(status == 128 + SIGTERM)
        #expect(restored, "stty -a differs after SIGTERM")
    }

    /// A live view on a terminal whose session cannot be read (nothing listens on port 1) ends
    /// with the error and status 65, and the terminal as it was, rather than an empty screen.
    @Test(.enabled(if: Tmux.available && CTFTraceReader.isAvailable), .timeLimit(.minutes(Patience.minutes(3))))
    func aLiveViewThatCannotReadSaysWhyAndPutsTheTerminalBack() async throws {
        let session = Tmux.Session()
        defer { session.stop() }
        try session.run("live net://127.0.0.1:1/host/h/s 2> \(session.dir.file("errors"))")
        let (status, restored) = try await session.ended()
        #expect(status == 65)
        #expect(restored, "stty -a differs")
        let errors = try String(contentsOfFile: session.dir.file("errors"), encoding: .utf8)
        #expect(errors.contains("cannot read this live session"), "\(errors)")
    }

    /// Without a terminal the panes are printed once, as plain text.
    @Test func withoutATerminalThePanesArePrinted() async throws {
        let (status, out, err) = try await traceView(["tui", demo])
        #expect(status == 0, "\(err)")
        #expect(
            out.contains("admission wait") && out.contains("spawned by") && out.contains("depth/time")
                && out.contains("wait p99/time"))
        #expect(!out.contains("\u{1B}"))
    }
}
