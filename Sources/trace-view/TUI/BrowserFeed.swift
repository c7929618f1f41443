import Foundation
import Transduce
import TransduceTrace

/// Reads a trace file for the terminal UI on a thread of its own, so that the screen shows the
/// first requests, tasks and gates while the rest is still being read: a frame of what has been
/// read so far every ``interval`` seconds (``BrowserReading/data(hosts:)``), its status saying
/// how far the reading is, then the whole data, whose largest parts and diagrams are read
/// through the file's index (built in the same pass when the file has none) or, for a file that
/// has no index (a CTF trace, JSON Lines), found for the slowest 10,000 in a second pass.
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

    /// Starts reading on a thread of its own: `open` opens the input (a file: rereadable) with
    /// the selection of the events the views see; `again` reads it anew (for a second pass).
    init(
        open: @escaping @Sendable () throws -> (TraceInput, Selection),
        again: @escaping @Sendable ((TraceEvent) -> Void) throws -> Void
    ) {
        Thread.detachNewThread { [self] in
            read(open: open, again: again)
        }
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

    private func read(
        open: () throws -> (TraceInput, Selection), again: @escaping ((TraceEvent) -> Void) throws -> Void
    ) {
        var reading = BrowserReading()
        var next = MonotonicClock.now() + UInt64(Self.interval * 1e9)
        var read: UInt64 = 0
        do {
            var (input, selection) = try open()
            // How many events the file has, when its index is kept: the status then says how far.
            let total = TraceFileIndex.identity(of: input.path).flatMap {
                TraceInput.keptIndex(of: input.path, identity: $0)?.events
            }
            var hold = Self.hold
            let (notes, counts, index) = try input.forEachIndexing { e in
                read += 1
                if selection.keep(e) { reading.consume(e) }
                guard read & 0x3FFF == 0, hold != nil || MonotonicClock.now() >= next else { return }
                next = MonotonicClock.now() + UInt64(Self.interval * 1e9)
                let done = total.map { " \(min(99, Int(read * 100 / UInt64(max(1, $0)))))%" } ?? ""
                publish(
                    BrowserLoop.Frame(
                        data: reading.data(hosts: input.hosts, preview: true), status: "reading\(done)", loading: true))
                if let path = hold {
                    hold = nil
                    Self.wait(for: path)
                }
            }
            try selection.check()
            let finished = reading.finish(hosts: input.hosts, slowest: index == nil ? 10_000 : 0)
            var data = finished.data
            data.lost = (counts?.overwritten ?? 0) + (counts?.discarded ?? 0)
            data.reread = again
            if let index {
                data.readDetails(through: index, path: input.path)
            } else {
                publish(BrowserLoop.Frame(data: data, status: "finding the largest parts", loading: true))
                try data.findDominants(of: finished.slowest, read: again)
            }
            // A damaged input says so on the screen, and on leaving it (exit 65), as in a pipe.
            let status = notes.isEmpty ? "" : "damaged input: \(notes.count) note\(notes.count == 1 ? "" : "s") on exit"
            publish(BrowserLoop.Frame(data: data, status: status), ending: Ending(notes: notes))
        } catch {
            var frame = BrowserLoop.Frame(data: BrowserReading().data(hosts: [:]), status: "")
            frame.closes = true
            publish(frame, ending: Ending(error: error))
        }
    }
}
