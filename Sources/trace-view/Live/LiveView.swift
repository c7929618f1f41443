import Dispatch
import TraceInputs
import Transduce
import TransduceTrace

/// What `trace-view live` shows of a ``LiveFeed`` while it is read: on a terminal the browser
/// (``BrowserLoop``) over the feed's window, with the whole stream's totals in its header; else
/// (a pipe, `--plain`) two plain lines every `every` seconds, the totals and the recent window's
/// requests and gates, and the totals once more at the end.
struct LiveView {
    /// Seconds between refreshes (the screen's, or the plain lines').
    var every: Double
    /// The most recent events the panes are computed from.
    var window: Int
    var plain: Bool
    var ascii: Bool
    /// The screen's colours (`nil`: none).
    var palette: RenderOptions?

    /// How a watch ended.
    struct Watched {
        var tally: LiveTally
        /// The user quit the UI before every session ended.
        var quit: Bool
    }

    /// Reads `urls` until every session ends or the user quits. `begin` runs once the readers
    /// started (before anything is shown); `quit` when the user quit before the sessions ended,
    /// before waiting for the readers (it must make them end: stop the feed, or the command).
    func watch(
        urls: [String], title: String, recordTag: String?, begin: (LiveFeed) throws -> Void = { _ in },
        quit: (LiveFeed) -> Void
    ) throws -> Watched {
        let feed = LiveFeed(urls: urls, capacity: window, recordTag: recordTag)
        do {
            try begin(feed)
        } catch {
            feed.stop()
            _ = feed.wait()
            throw error
        }
        var quitEarly = false
        if !plain && TerminalSession.begin() {
            var shown: (events: UInt64, ended: Bool) = (UInt64.max, false)
            let frame = { () -> BrowserLoop.Frame? in
                let ended = feed.ended
                let now = feed.snapshot()
                guard (now.window.tally.events, ended) != shown else { return nil }
                shown = (now.window.tally.events, ended)
                var frame = Self.frame(now, ended: ended, ascii: ascii)
                // Every reader failed before any event: the error says why, not an empty screen.
                frame.closes = ended && now.window.tally.events == 0 && feed.failed
                return frame
            }
            BrowserLoop.run(
                title: title, ascii: ascii, palette: palette, frame: frame()!, live: true, refresh: every, update: frame)
            TerminalSession.restore()
            quitEarly = !feed.ended
            if quitEarly { quit(feed) }
        } else {
            // A serial queue of its own, so that the last tick has finished before the last line.
            let ticks = DispatchQueue(label: "trace-view.live.plain")
            let timer = DispatchSource.makeTimerSource(queue: ticks)
            timer.schedule(deadline: .now() + every, repeating: every)
            let started = MonotonicClock.now()
            timer.setEventHandler {
                let now = feed.snapshot()
                guard now.window.tally.events > 0 else {
                    // Nothing yet: say so, so that a silent relay daemon is not a silent view.
                    let waited = Double(MonotonicClock.now() &- started) / 1e9
                    return Terminal.print([Self.waiting(sessions: urls.count, for: waited)])
                }
                Terminal.print([Self.line(now.window.tally), Self.recent(TraceOverview(trace: now.trace))])
            }
            timer.resume()
            _ = feed.wait()
            timer.cancel()
            ticks.sync {}
        }
        let endings = feed.wait()
        let end = feed.snapshot()
        let tally = end.window.tally
        // Nothing read and a reader failed: its error is the whole answer.
        if tally.events > 0 || !feed.failed {
            Terminal.print([Self.line(tally, ended: quitEarly ? "live stopped, " : "live ended, ", lost: end.lost)])
        }
        if end.lossesUnknown && !quitEarly {
            Terminal.error("trace-view: note: LTTng lost events it could not count (whole packets)")
        }
        // A reader the user stopped says only that it was stopped.
        if !quitEarly {
            let failures = endings.compactMap(\.failure)
            for ending in endings {
                for note in ending.notes.prefix(20) { Terminal.error("trace-view: note: \(note)") }
                if let failure = ending.failure, urls.count > 1 { Terminal.error("trace-view: \(failure)") }
            }
            // A session that could not be read, or whose reader stopped, fails the view (exit 65),
            // whatever the others showed.
            if failures.count == 1 && urls.count == 1 { throw CLIError.data(failures[0]) }
            if !failures.isEmpty {
                throw CLIError.data("\(failures.count) of the \(urls.count) sessions could not be read to their end")
            }
        }
        return Watched(tally: tally, quit: quitEarly)
    }

    /// The browser's frame of a live window: the panes from its events, the header's counts
    /// from the whole stream.
    static func frame(_ state: LiveFeed.State, ended: Bool, ascii: Bool) -> BrowserLoop.Frame {
        var data = TraceOverview(trace: state.trace)
        let tally = state.window.tally
        data.events = tally.events
        data.runtimes = tally.runtimes.count
        data.lost = state.lost
        let kept = state.trace.events.count
        return BrowserLoop.Frame(
            data: data,
            status: (ended ? "ended, q quits" : "live, \(tally.inFlight.count) waiting")
                + (UInt64(kept) < tally.events ? ", panes: last \(kept) events" : ""),
            totals: "all: " + aggregates(tally, ascii: ascii))
    }

    /// The stream's latency aggregates: requests' p99, gate waits' p99, the longest hold.
    static func aggregates(_ tally: LiveTally, ascii: Bool) -> String {
        "request p99 \(formatDuration(tally.requestLatencies.percentile(0.99), ascii: ascii)), "
            + "gate wait p99 \(formatDuration(tally.gateWaits.percentile(0.99), ascii: ascii)), "
            + "longest hold \(formatDuration(tally.longestHold, ascii: ascii))"
    }

    /// The plain line while no event has come: what the view waits for, and for how long.
    static func waiting(sessions: Int, for seconds: Double) -> String {
        "live: waiting for the relay daemon, no event yet from "
            + (sessions == 1 ? "the session" : "\(sessions) sessions") + ", \(Int(seconds)) s"
    }

    /// One plain line of running totals, after `prefix` (the last one says how the watch ended).
    static func line(_ tally: LiveTally, ended prefix: String = "live, ", lost: UInt64 = 0) -> String {
        let kinds = tally.kindsSeen.map { "\($0)=\(tally.count(of: $0))" }.joined(separator: " ")
        return prefix + "span \(formatDuration(tally.lastTime &- tally.firstTime, ascii: true))"
            + ": \(counted(tally.events, "event")), \(counted(tally.runtimes.count, "runtime")), \(tally.inFlight.count) waiting, "
            + "max queue \(tally.maxQueueDepth)" + (lost > 0 ? ", \(lost) lost" : "")
            + ", \(aggregates(tally, ascii: true)); \(kinds)"
    }

    /// One plain line of what the window holds: its requests (the slowest, and its largest
    /// part) and the busiest gate.
    static func recent(_ data: TraceOverview) -> String {
        let done = data.requests.filter { !$0.waiting }
        let waiting = data.requests.count - done.count
        var parts = ["  recent \(data.index?.events.count ?? 0) events: \(done.count) requests resumed, \(waiting) waiting"]
        if let slowest = done.max(by: { $0.total < $1.total }) {
            parts.append(
                "slowest #\(slowest.dispatch) \(slowest.label) \(formatDuration(slowest.total, ascii: true))"
                    + (slowest.dominant.map { $0.isEmpty ? "" : " (\($0))" } ?? ""))
        }
        if let gate = data.gates.max(by: { $0.waitP99 < $1.waitP99 }) {
            parts.append(
                "gate wait p99 \(formatDuration(gate.waitP99, ascii: true)) (runtime \(gate.runtime.name)"
                    + (gate.host.isEmpty ? "" : " on \(gate.host)") + "), max queue \(gate.maxDepth)"
                    + (gate.holdingNow.isEmpty ? "" : ", held by \(gate.holdingNow)"))
        }
        return parts.joined(separator: "; ")
    }
}
