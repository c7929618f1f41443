import Foundation
import TraceInputs
import Transduce
import TransduceTrace
import TransduceTraceCTF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One or more LTTng live sessions read at once, each by its own reader child (``CTFChild``,
/// `--live`) on its own thread, folded as they arrive into one ``LiveWindow`` with the host of
/// each process (the host the session's URL names). Several sessions, from several hosts through
/// one relay daemon, are so one view.
///
/// Thread-safe: the readers fold under a lock; ``snapshot()`` copies the window in O(1) (the
/// next event copies its storage once). Memory is the window's and one host name per process
/// (at most ``maxProcesses``).
final class LiveFeed: Sendable {
    /// What one reader ended with.
    struct Ending: Sendable {
        var url: String
        /// Its notes, or why it could not read at all.
        var notes: [String]
        var failure: String?
    }

    /// What the readers have made so far.
    struct State: Sendable {
        var window: LiveWindow
        var hosts: [UInt32: String] = [:]
        /// Events LTTng discarded, as each reader counted them when its session ended (a reader
        /// learns its session's count at the end).
        var lost: UInt64 = 0
        /// A reader could not count all its losses (LTTng lost whole packets, or it stopped early).
        var lossesUnknown = false

        /// The window as a trace, with each process's host.
        var trace: Trace {
            var trace = window.trace
            trace.hosts = hosts
            return trace
        }
    }

    static let maxProcesses = 65_536

    let urls: [String]
    private let state: Lock<State>
    /// The readers' children, and whether ``stop()`` was called (a child that starts after it is
    /// stopped at once).
    private let children = Lock<(pids: [pid_t], stopped: Bool)>(([], false))
    private let endings = Lock<[Ending]>([])
    private let finished = DispatchSemaphore(value: 0)

    /// Starts reading each of `urls` (live URLs) at once; `recordTag` keeps only the processes of
    /// a `trace-view live -- COMMAND`.
    /// The readers share ``CTFChild/memoryBudgetMB`` (each has at least 256 MB).
    init(urls: [String], capacity: Int, recordTag: String?) {
        self.urls = urls
        let memoryMB = max(256, CTFChild.memoryBudgetMB / max(1, urls.count))
        state = Lock(State(window: LiveWindow(capacity: capacity)))
        for url in urls {
            let host = Self.hostName(of: url)
            Thread.detachNewThread { [self] in
                var ending = Ending(url: url, notes: [])
                var reader: pid_t = 0
                // Once its reader is reaped, its pid may be another process's: never signalled.
                defer { children.withLock { $0.pids.removeAll { $0 == reader } } }
                do {
                    let result = try CTFChild.read(
                        path: url, recordTag: recordTag, live: true, memoryMB: memoryMB,
                        started: { pid in
                            reader = pid
                            children.withLock { if $0.stopped { kill(pid, SIGTERM) } else { $0.pids.append(pid) } }
                        }
                    ) { event in
                        state.withLock { state in
                            state.window.add(event)
                            if state.hosts[event.process] == nil, state.hosts.count < Self.maxProcesses {
                                state.hosts[event.process] = host
                            }
                        }
                    }
                    ending.notes = result.notes
                    state.withLock {
                        $0.lost += result.counts?.discarded ?? 0
                        $0.lossesUnknown = $0.lossesUnknown || result.lossesUnknown
                    }
                } catch {
                    ending.failure = Self.diagnosed((error as? CLIError)?.message ?? "\(error)", url: url)
                }
                endings.withLock { $0.append(ending) }
                finished.signal()
            }
        }
    }

    /// The host a live URL names (`net://RELAY/host/HOSTNAME/SESSION`), "" when it names none.
    /// `failure` of reading `url`, or, when the session already had another viewer (a relay
    /// daemon serves one per session, and babeltrace2's error says only that reading failed),
    /// that. Asked of the relay daemon only once reading failed.
    static func diagnosed(_ failure: String, url: String) -> String {
        guard let relay = url.range(of: "/host/").map({ String(url[..<$0.lowerBound]) }),
            let session = try? LiveListing.sessions(url: relay).first(where: { $0.url == url }),
            session.clients > 0
        else { return failure }
        return "\(url): this session already has a live viewer (an LTTng relay daemon serves one viewer per "
            + "session): stop that viewer, or read the session's trace once it is done"
    }

    static func hostName(of url: String) -> String {
        let parts = url.split(separator: "/")
        guard let at = parts.firstIndex(of: "host"), at + 1 < parts.count else { return "" }
        return String(parts[at + 1])
    }

    /// The window and hosts now.
    func snapshot() -> State { state.withLock { $0 } }

    /// Whether every reader has ended (every session was destroyed, or failed).
    var ended: Bool { endings.withLock { $0.count } == urls.count }

    /// Whether a reader failed (could not read its session at all).
    var failed: Bool { endings.withLock { $0.contains { $0.failure != nil } } }

    /// Stops every reader (the user quit before the sessions ended).
    func stop() {
        children.withLock {
            $0.stopped = true
            for pid in $0.pids { kill(pid, SIGTERM) }
        }
    }

    /// Waits until every reader has ended; their endings, in the order they ended.
    func wait() -> [Ending] {
        for _ in urls { finished.wait() }
        for _ in urls { finished.signal() }  // a later wait returns at once
        return endings.withLock { $0 }
    }
}
