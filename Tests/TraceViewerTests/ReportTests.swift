import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace
@testable import trace_view

/// `trace-view report`: the model the page embeds is the analysed model of the trace (its
/// requests, tasks, cycles and gates as the library's analyses find them, and pinned by a golden of
/// its data, not its bytes); a real browser opens the page from disk with no error and no request,
/// draws a span per request and a row per task, and shows a request's diagram on a click or
/// through the URL's fragment; no label becomes markup.
@Suite struct ReportTests {
    static let hasBrowser = browserAvailable

    /// The report of `input` (arguments then the trace), its page and its model.
    static func report(_ input: [String], in directory: TemporaryDirectory) async throws -> (page: String, model: ReportModel) {
        let path = directory.file("report.html")
        let run = try await traceView(["report", "--output", path] + input)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.isEmpty)
        let page = try String(contentsOfFile: path, encoding: .utf8)
        return (page, try ReportPage.model(in: page))
    }

    @Test(arguments: ["demo.jsonl", "two-runtimes.jsonl"])
    func theEmbeddedModelIsTheAnalysedModel(_ name: String) async throws {
        let directory = TemporaryDirectory()
        let (_, model) = try await Self.report([fixtures + "/" + name], in: directory)
        let trace = try JSONLinesReader(path: fixtures + "/" + name).readAll()
        let events = trace.events
        let index = TraceIndex(events)
        let start = events.map(\.time).min() ?? 0
        let end = events.map(\.time).max() ?? 0
        let runtimes = Set(events.map(\.runtimeKey)).sorted()
        #expect(model.runtimes.map(\.name) == runtimes.map(\.name))
        #expect(model.summary.events == UInt64(events.count))
        #expect(model.summary.span == end - start)
        #expect(model.aggregated.isEmpty)

        // Every resumed awaited request with its latency (resume − dispatch), and those waiting.
        let resumed = index.latencyBreakdowns().map { "\($0.runtime.name) #\($0.dispatch) \($0.label) \($0.total)" }
        let shown = model.requests.filter { !$0.waiting }.map {
            "\(model.runtimes[$0.runtime].name) #\($0.dispatch) \($0.label) \($0.total)"
        }
        #expect(shown.sorted() == resumed.sorted())
        #expect(model.summary.requests == events.filter(\.isAwaitedDispatch).count)
        #expect(model.requests.map(\.total) == model.requests.map(\.total).sorted(by: >))
        for request in model.requests.prefix(ReportModel.Limits().diagrams) where !request.waiting {
            // The breakdown's parts add up to the latency, and its path runs from its dispatch
            // to its resume.
            let parts = try #require(request.parts)
            #expect(parts.map(\.nanos).reduce(0, +) == request.total)
            let path = try #require(request.path)
            #expect(path.first?.time == request.start && path.last?.time == request.start + request.total)
            #expect(path.contains { $0.gate })
        }

        // Every task instance as the task report has it.
        let tasks = TaskReport(index: index).rows
        #expect(model.tasks.count == tasks.count)
        for (row, task) in zip(tasks, model.tasks) {
            #expect(model.runtimes[task.runtime].name == row.runtime.name)
            #expect(
                [task.task, task.start + start, task.ran ?? .max, task.replacedBy]
                    == [row.task, row.start, row.ran ?? .max, row.replacedBy])
            #expect(
                [task.name, task.policy, task.outcome, task.spawnedBy] == [row.name, row.policy, row.outcome, row.spawnedBy])
            #expect(task.joinedBy == row.joinedBy)
        }

        // Every cycle: enter to leave, on its runtime's gate; its runtime's figures as the
        // contention report finds them.
        let enters = events.filter { $0.kind == .cycleEnter }
        #expect(model.cycles.count == enters.count && model.summary.cycles == enters.count)
        for (r, key) in runtimes.enumerated() {
            var report = ContentionReport()
            for e in events where e.runtimeKey == key { report.consume(e) }
            let g = model.runtimes[r]
            #expect(g.cycles == Int(report.holds.count))
            #expect(g.waitP99 == report.waits.percentile(0.99))
            #expect(g.longestHold == report.holds.max)
            #expect(g.maxDepth == report.maxDepth[key] ?? 0)
            #expect(g.waits.map(\.count).reduce(0, +) == report.waits.count)
            let leaves = Dictionary(
                events.filter { $0.runtimeKey == key && $0.kind == .cycleLeave }.map { ($0.cycle, $0.time) },
                uniquingKeysWith: { a, _ in a })
            for c in model.cycles where c.runtime == r {
                let enter = try #require(enters.first { $0.runtimeKey == key && $0.cycle == c.cycle })
                #expect(c.enter + start == enter.time)
                #expect(c.held == (leaves[c.cycle] ?? end) - enter.time)
            }
        }

        // And the same model made in this process from the same trace.
        let data = TraceOverview(trace: trace)
        var cycles = ReportCycles(limit: ReportModel.Limits().cycles)
        var totals = ReportTotals()
        for e in events {
            cycles.consume(e)
            totals.consume(e)
        }
        cycles.finish()
        let made = ReportModel.make(data: data, cycles: cycles, totals: totals, source: name, hosts: trace.hosts)
        #expect(made.model == model)
    }

    /// The demo's model, pinned: a change to what the page shows changes this golden.
    @Test func theDemosDataIsUnchanged() async throws {
        let (_, model) = try await Self.report([fixtures + "/demo.jsonl"], in: TemporaryDirectory())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try expectGolden(String(decoding: try encoder.encode(model), as: UTF8.self) + "\n", "report-demo.json")
    }

    /// Labels made to break out stay text: the model holds them whole, the page's markup has only
    /// its own two scripts, and the browser shows them as text without running anything.
    @Test func hostileLabelsStayText() async throws {
        let directory = TemporaryDirectory()
        let (page, model) = try await Self.report([fixtures + "/regressions/hostile-labels.jsonl"], in: directory)
        #expect(page.components(separatedBy: "<script").count == 3)
        let labels = Set(model.requests.map(\.label))
        #expect(labels.contains { $0.contains("\u{1B}") })
        guard Self.hasBrowser else { return }
        let seen = try await browserCheck(
            directory.file("report.html"),
            eval: "JSON.stringify([document.scripts.length, window.pwned === undefined, document.body.dataset.ready])")
        #expect(seen.value as? String == "[2,true,\"1\"]", "\(seen.raw)")
    }

    /// Standard input is read once, into a copy that the passes read: the same model as the file.
    @Test func standardInputMakesTheSameModel() async throws {
        let directory = TemporaryDirectory()
        let (_, fromFile) = try await Self.report([fixtures + "/two-runtimes.jsonl"], in: directory)
        let path = directory.file("stdin.html")
        let binary = try #require(builtProduct("trace-view"))
        let (status, output) = try await run(
            "/bin/sh", ["-c", "'\(binary)' report --output '\(path)' - < '\(fixtures)/two-runtimes.jsonl'"])
        #expect(status == 0, "\(output)")
        var fromStdin = try ReportPage.model(in: String(contentsOfFile: path, encoding: .utf8))
        #expect(fromStdin.summary.source == "standard input")
        fromStdin.summary.source = fromFile.summary.source
        #expect(fromStdin == fromFile)
    }

    /// The page follows the reader's scheme: a dark background when it is dark, a light one
    /// otherwise, and far from blank either way. The light one is the README's picture
    /// (`docs/report.png`, written again with `UPDATE_GOLDENS=1`).
    @Test(.enabled(if: hasBrowser), arguments: [false, true])
    func itReadsInLightAndDark(dark: Bool) async throws {
        let directory = TemporaryDirectory()
        _ = try await Self.report([fixtures + "/demo.jsonl"], in: directory)
        let seen = try await browserCheck(
            directory.file("report.html"), eval: "getComputedStyle(document.body).backgroundColor",
            screenshot: directory.file("shot.png"), width: 1100, height: 640, dark: dark)
        #expect(seen.value as? String == (dark ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)"), "\(seen.raw)")
        let brightness = (seen.screenshot["corner"] as? [Int] ?? []).reduce(0, +)
        #expect(dark ? brightness < 150 : brightness > 600, "\(seen.screenshot)")
        #expect((seen.screenshot["unlike_corner"] as? Double ?? 0) > 0.05, "\(seen.screenshot)")
        guard !dark else { return }
        let picture = SVGExportTests.root + "/docs/report.png"
        if ProcessInfo.processInfo.environment["UPDATE_GOLDENS"] != nil {
            _ = try? FileManager.default.removeItem(atPath: picture)
            try FileManager.default.copyItem(atPath: directory.file("shot.png"), toPath: picture)
        }
        let png = try #require(FileManager.default.contents(atPath: picture), "the README's picture is missing")
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count < 200_000)
        let readme = try String(contentsOfFile: SVGExportTests.root + "/README.md", encoding: .utf8)
        #expect(readme.contains("](docs/report.png)"))
    }

    @Test func wrongArgumentsAreUsageErrors() async throws {
        let bad = try await traceView(["report", "--format", "html", fixtures + "/demo.jsonl"])
        #expect(bad.status == 64, "\(bad.err)")
        let missing = try await traceView(["report", fixtures + "/no-such.jsonl"])
        #expect(missing.status != 0 && missing.err.contains("no-such"), "\(missing.err)")
        // Standard output, when no --output is given.
        let out = try await traceView(["report", fixtures + "/demo.jsonl"])
        #expect(out.status == 0 && out.out.hasPrefix("<!DOCTYPE html>") && out.out.hasSuffix("</html>\n"))
    }

    /// The browser's count of what the page drew: spans, task rows, and the JSON it read.
    static let drawn = """
        JSON.stringify({ready: document.body.dataset.ready, spans: document.querySelectorAll('#timeline rect.span').length,
          requestRows: document.querySelectorAll('#requests-table tbody tr').length,
          taskRows: document.querySelectorAll('#tasks-table tbody tr').length,
          cycles: document.querySelectorAll('#timeline rect.cyc').length,
          aggregated: document.querySelectorAll('#aggregated li').length})
        """

    /// The drawing of one request's detail: which it is, its diagram's arrows, its path's points.
    static let detail = """
        JSON.stringify({request: document.getElementById('detail').dataset.request || null,
          arrows: (document.querySelector('#detail .diagram') || {shadowRoot: null}).shadowRoot
            ? document.querySelector('#detail .diagram').shadowRoot.querySelectorAll('line.msg').length : 0,
          points: document.querySelectorAll('#timeline .pathdot').length, hash: location.hash})
        """

    static func decode(_ value: Any?) throws -> [String: Any] {
        let text = try #require(value as? String)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The demo's page in a browser: a span per request, a row per task, a non-blank screenshot;
    /// the URL's fragment (at load and changed) and a click on a request (a DOM event dispatched
    /// through the DevTools protocol) each open that request's diagram, the one `export --format
    /// svg --request` draws.
    @Test(.enabled(if: hasBrowser)) func aBrowserShowsTheDemo() async throws {
        let directory = TemporaryDirectory()
        let (_, model) = try await Self.report([fixtures + "/demo.jsonl"], in: directory)
        let page = directory.file("report.html")
        let shot = directory.file("report.png")
        let seen = try await browserCheck(page, eval: Self.drawn, screenshot: shot)
        let drawn = try Self.decode(seen.value)
        #expect(drawn["ready"] as? String == "1")
        #expect(drawn["spans"] as? Int == model.requests.count && model.requests.count == 12, "\(drawn)")
        #expect(drawn["requestRows"] as? Int == model.requests.count, "\(drawn)")
        #expect(drawn["taskRows"] as? Int == model.tasks.count && model.tasks.count == 6, "\(drawn)")
        #expect(drawn["cycles"] as? Int == model.cycles.count, "\(drawn)")
        #expect(drawn["aggregated"] as? Int == 0)
        #expect(seen.screenshot["width"] as? Int == 1400)
        #expect((seen.screenshot["colours"] as? Int ?? 0) >= 8, "\(seen.screenshot)")
        #expect((seen.screenshot["unlike_corner"] as? Double ?? 0) > 0.05, "\(seen.screenshot)")

        // A shared fetch's request (dispatch 8) through the fragment the page is opened at, then
        // the slowest (17) by a click, then dispatch 8 again by a change of the fragment: one
        // browser (each is a second of CPU on a busy machine).
        var arrows: [UInt64: Int] = [:]
        for dispatch in [8, 17] as [UInt64] {
            let svg = try await traceView(["export", "--format", "svg", "--request", "\(dispatch)", fixtures + "/demo.jsonl"])
            arrows[dispatch] = try SVGExportTests.svgCounts(SVGExportTests.Elements.parse(svg.out))["arrows"] ?? 0
            #expect(arrows[dispatch]! > 3)
        }
        let slowest = try #require(model.requests.firstIndex { $0.dispatch == 17 })
        let steps = """
            (async () => {
              const seen = [JSON.parse(\(Self.detail))];
              document.querySelector('#timeline rect.span[data-request="\(slowest)"]')
                .dispatchEvent(new MouseEvent('click', {bubbles: true}));
              seen.push(JSON.parse(\(Self.detail)));
              await new Promise(r => { addEventListener('hashchange', r, {once: true}); location.hash = 'request=0.8'; });
              seen.push(JSON.parse(\(Self.detail)));
              return JSON.stringify(seen);
            })()
            """
        let opened = try await browserCheck(page, eval: steps, fragment: "request=8")
        let text = try #require(opened.value as? String)
        let details = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(details.count == 3)
        for (detail, (dispatch, hash)) in zip(details, [(8, "#request=0.8"), (17, "#request=0.17"), (8, "#request=0.8")]) {
            #expect(detail["request"] as? String == "0.\(dispatch)", "\(detail)")
            #expect(detail["arrows"] as? Int == arrows[UInt64(dispatch)], "\(detail)")
            #expect((detail["points"] as? Int ?? 0) >= 2, "\(detail)")
            #expect(detail["hash"] as? String == hash, "\(detail)")
        }
    }
}
