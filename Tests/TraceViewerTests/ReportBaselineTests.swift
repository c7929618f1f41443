import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace
@testable import trace_view

/// `report --baseline BASE`: the page's comparison is what `diff BASE TRACE` says (each request
/// key's verdict and figures, the pairs by trace context), its two distributions hold every
/// request of each run, and a real browser draws a card per key with both.
@Suite(.serialized) struct ReportBaselineTests {
    @Test(.timeLimit(.minutes(Patience.minutes(5)))) func thePageComparesAsDiffDoes() async throws {
        let dir = TemporaryDirectory()
        // The diff tests' shop: loads 2 ms slower in the new run, under fixed trace contexts (one
        // load made only in the base). What the statistics conclude is the diff tests' to check;
        // here, that the page says what diff says.
        let (_, rows, err, _) = try await DiffTests.pair(
            base: .init(), new: .init(extraLoad: .milliseconds(2)), seed: 43, contexts: true, onlyBase: [9], in: dir)
        #expect(!rows.isEmpty, "\(err)")
        let (base, new) = (dir.file("base-43.tdtrace"), dir.file("new-43.tdtrace"))
        let page = dir.file("report.html")
        let run = try await traceView(["report", "--baseline", base, "--output", page, new])
        #expect(run.status == 0, "\(run.err)")
        let model = try ReportPage.model(in: try String(contentsOfFile: page, encoding: .utf8))
        let compared = try #require(model.baseline)
        #expect(compared.source == "base-43.tdtrace")
        #expect(compared.onlyBase == 1 && compared.onlyNew == 0)

        let requests = rows.filter { $0["section"] as? String == "request" }
        #expect(compared.requests.count == requests.count && requests.count == 2)
        for row in requests {
            let label = try #require(row["subject"] as? String)
            let r = try #require(compared.requests.first { $0.label == label })
            #expect(r.verdict == row["verdict"] as? String && r.tail == row["tail"] as? String, "\(label)")
            #expect(r.base.count == row["base_count"] as? UInt64 && r.new.count == row["new_count"] as? UInt64)
            #expect(r.base.p50 == row["base_p50_ns"] as? UInt64 && r.new.p99 == row["new_p99_ns"] as? UInt64)
            // Both distributions whole, on one axis that spans both.
            #expect(r.baseCounts.reduce(0, +) == r.base.count && r.newCounts.reduce(0, +) == r.new.count)
            #expect(r.edges.count == r.baseCounts.count + 1 && r.edges == r.edges.sorted())
            #expect(r.edges.first! <= min(r.base.p50, r.new.p50) && r.edges.last! > max(r.base.max, r.new.max))
        }
        // The pairs: all but the load the new run never made, with diff's verdict and median.
        let load = try #require(compared.requests.first { $0.label == "load" })
        let paired = try #require(rows.first { $0["section"] as? String == "paired" })
        #expect(load.pairs == 199 && paired["base_count"] as? Int == 199, "\(load)")
        #expect(load.pairedVerdict == paired["verdict"] as? String)
        #expect((paired["detail"] as? String)?.hasPrefix("median change \(load.medianChange!) ns") == true)
        // The parts shown are diff's part rows of the key.
        let parts = Set(
            rows.filter { $0["section"] as? String == "part" && $0["subject"] as? String == "load" }.compactMap {
                $0["part"] as? String
            })
        #expect(Set(load.parts.map(\.kind)).isSubset(of: parts), "\(load.parts) of \(parts)")

        guard browserAvailable else { return }
        let seen = try await browserCheck(
            page,
            eval: """
                JSON.stringify({ready: document.body.dataset.ready,
                  cards: Array.from(document.querySelectorAll('#baseline .compared')).map(c => c.dataset.verdict),
                  baseBars: document.querySelectorAll('#baseline rect.base[height]:not([height="0"])').length,
                  newBars: document.querySelectorAll('#baseline rect.b[height]:not([height="0"])').length,
                  nav: Array.from(document.querySelectorAll('nav a')).map(a => a.textContent)})
                """)
        let drawn = try ReportTests.decode(seen.value)
        #expect(drawn["ready"] as? String == "1")
        #expect(drawn["cards"] as? [String] == compared.requests.map(\.verdict), "\(drawn)")
        let bins = compared.requests.map { r in (r.baseCounts.count { $0 > 0 }, r.newCounts.count { $0 > 0 }) }
        #expect(drawn["baseBars"] as? Int == bins.map(\.0).reduce(0, +), "\(drawn)")
        #expect(drawn["newBars"] as? Int == bins.map(\.1).reduce(0, +), "\(drawn)")
        #expect((drawn["nav"] as? [String])?.contains("Compared") == true)
    }

    /// A baseline needs a trace file to read again, and an input that is there.
    @Test func wrongBaselinesAreRefused() async throws {
        let dir = TemporaryDirectory()
        let piped = try await traceView(["report", "--baseline", fixtures + "/demo.jsonl", "-"])
        #expect(piped.status == 64 && piped.err.contains("--baseline needs TRACE to be a file"), "\(piped.err)")
        let absent = try await traceView(
            ["report", "--baseline", dir.file("absent.tdtrace"), "--output", dir.file("r.html"), fixtures + "/demo.jsonl"])
        #expect(absent.status == 66, "\(absent.err)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("r.html")))
    }
}
