import Foundation
import TraceInputs
import Transduce
import TransduceTrace

/// Reads a trace for the terminal UI on a thread of its own, so that the screen shows the first
/// requests, tasks and gates while the rest is still being read: a frame of what has been read
/// so far every ``interval`` seconds (``OverviewReading/data(hosts:)``), its status saying how
/// far the reading is, then the whole data, whose largest parts and diagrams are read through
/// the index of the file the passes read (``TraceSource``: the trace file's, built in the same
/// pass when it has none, or its copy's) or, without one, found for the slowest 10,000 in a
/// second pass.
///
/// The loop takes frames with ``next()``; ``ending`` says how the reading ended once the last
/// frame is out. A reading that fails (not a trace, a selection that matches nothing) sends a
/// frame that closes the screen, and ``ending`` holds the error for the command to throw.
final class BrowserFeed: Sendable {
    /// How the reading ended.
    struct Ending {
        /// The input's notes (damage, values no runtime writes): the command's exit status.
        var notes: [String] = []
        var error: (any Error)?
    }

    /// Seconds between two frames while reading.
    static let interval = 0.25

    /// A test hook: with `TRACE_VIEW_TUI_HOLD=PATH` set, the reading publishes its first preview
    /// frame after 16,384 events whatever the time, then waits until PATH exists (at most two
    /// minutes), so that a test sees the screen while the file is being read however fast the
    /// machine reads it, and lets it go on by an explicit signal.
    static let hold = ProcessInfo.processInfo.environment["TRACE_VIEW_TUI_HOLD"]

    // The frame not yet taken (each supersedes the last), and the ending once known.
    private let state = Lock<(frame: BrowserLoop.Frame?, ending: Ending?)>((nil, nil))

    /// Starts reading `source` (opened by the command, so that a missing file is said before the
    /// screen is taken) on a thread of its own, where alone it is used from then on.
    init(source: TraceSource) {
        let handover = Handover(source)
        Thread.detachNewThread { [self] in
            read(handover.source)
        }
    }

    /// Hands the source to the reading thread: the command lets go of it once the feed starts.
    private final class Handover: @unchecked Sendable {
        let source: TraceSource
        init(_ source: TraceSource) { self.source = source }
    }

    /// The frame read since the last call, if any.
    func next() -> BrowserLoop.Frame? {
        state.withLock { s in
            let frame = s.frame
            s.frame = nil
            return frame
        }
    }

    /// How the reading ended; nil while it goes on.
    var ending: Ending? { state.withLock { $0.ending } }

    private func publish(_ frame: BrowserLoop.Frame, ending: Ending? = nil) {
        state.withLock { $0 = (frame, ending ?? $0.ending) }
    }

    /// Waits until `path` exists, two minutes at most (``hold``).
    private static func wait(for path: String) {
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }

    private func read(_ source: TraceSource) {
        var reading = OverviewReading()
        var next = MonotonicClock.now() + UInt64(Self.interval * 1e9)
        var read: UInt64 = 0
        do {
            if source.copies {
                publish(BrowserLoop.Frame(data: reading.data(hosts: [:]), status: "copying", loading: true))
            }
            // How many events the file has, when known (its index kept, or the copy's count): the
            // status then says how far.
            var total = source.knownEvents
            var hold = Self.hold
            try source.pass { e in
                reading.consume(e)
                // The source counts what it read (selected or not) in steps of 16,384.
                guard source.read != read else { return }
                read = source.read
                if total == nil { total = source.copiedEvents }
                guard hold != nil || MonotonicClock.now() >= next else { return }
                next = MonotonicClock.now() + UInt64(Self.interval * 1e9)
                let done = total.map { " \(min(99, Int(read * 100 / UInt64(max(1, $0)))))%" } ?? ""
                publish(
                    BrowserLoop.Frame(
                        data: reading.data(hosts: source.hosts, preview: true), status: "reading\(done)", loading: true))
                if let path = hold {
                    hold = nil
                    Self.wait(for: path)
                }
            }
            let index = source.index
            let finished = reading.finish(hosts: source.hosts, slowest: index == nil ? 10_000 : 0)
            var data = finished.data
            data.lost = (source.counts?.overwritten ?? 0) + (source.counts?.discarded ?? 0)
            let again = source.rereader()
            data.reread = again
            if let index, let path = source.passPath {
                data.readDetails(through: index, path: path)
            } else {
                publish(BrowserLoop.Frame(data: data, status: "finding the largest parts", loading: true))
                try data.findDominants(of: finished.slowest, read: again)
            }
            // A damaged input says so on the screen, and on leaving it (exit 65), as in a pipe.
            let notes = source.notes
            let status = notes.isEmpty ? "" : "damaged input: \(notes.count) note\(notes.count == 1 ? "" : "s") on exit"
            publish(BrowserLoop.Frame(data: data, status: status), ending: Ending(notes: notes))
        } catch {
            var frame = BrowserLoop.Frame(data: OverviewReading().data(hosts: [:]), status: "")
            frame.closes = true
            publish(frame, ending: Ending(error: error))
        }
    }
}
