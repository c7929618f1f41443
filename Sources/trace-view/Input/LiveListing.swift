import Foundation
import Synchronization
import TraceInputs
import TraceTooling
import Transduce
import TransduceTrace
import TransduceTraceCTF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sessions a relay daemon offers, asked by a child (`trace-view __read-ctf --list URL`)
/// under the live time budget and a memory budget.
///
/// A relay daemon is a network peer: babeltrace2 waits on its socket with no timeout, and
/// believes the session count it is told. So the asking runs in a child that a watchdog of its
/// own ends (exit 65) when the relay does not answer within ``LiveBudget/seconds``, that prints
/// at most ``maxSessions`` sessions, and whose memory is limited; the parent reads its lines.
enum LiveListing {
    /// The most sessions one listing reports.
    static let maxSessions = 10_000

    /// The sessions the relay daemon at `url` (`net://HOST[:PORT]`) offers; throws a clear
    /// ``CLIError`` (exit 65) when it cannot be reached, does not answer in time, or answers
    /// nonsense.
    static func sessions(url: String) throws -> [CTFTraceReader.LiveSession] {
        let result: Subprocess.Result
        do {
            result = try Subprocess.run(
                CTFChild.selfExecutable(), [CTFChild.command, "--list", url],
                environment: ["TRANSDUCE_LTTNG": "off", LiveBudget.variable: String(LiveBudget.seconds)],
                output: .captureSeparately, timeout: LiveBudget.seconds + 10)
        } catch {
            throw CLIError.data("\(url): the relay daemon did not answer within \(LiveBudget.description) (\(error))")
        }
        let errors = result.errors.split(separator: "\n")
        guard result.status == 0 else {
            let fatal = errors.last { $0.hasPrefix("error: ") }.map { String($0.dropFirst(7)) }
            throw CLIError.data(fatal ?? "\(url): cannot list the relay daemon's sessions (status \(result.status))")
        }
        return result.output.split(separator: "\n").compactMap(parse)
    }

    // MARK: the child

    /// The child's side: lists `url`'s sessions on standard output, one line each.
    static func runChild(url: String) -> Never {
        LiveBudget.startWatchdog(url: url)
        do {
            let sessions = try CTFTraceReader.liveSessions(url: url)
            var out = ""
            for session in sessions.prefix(maxSessions) {
                out +=
                    [session.url, session.hostname, session.name, String(session.streams), String(session.clients)]
                    .map(encode).joined(separator: "\t") + "\n"
            }
            if sessions.count > maxSessions {
                Terminal.error("note: \(url) offers \(sessions.count) sessions; the first \(maxSessions) are listed")
            }
            Terminal.write(out)
            exit(0)
        } catch {
            Terminal.error("error: \(error)")
            exit(65)
        }
    }

    /// A field, with the bytes that would break a line (controls) and `%` percent-encoded: a
    /// relay daemon names sessions with whatever bytes it likes.
    static func encode(_ field: String) -> String {
        var out: [UInt8] = []
        for byte in field.utf8 {
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "%") {
                out += Array(("%" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)).utf8)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var i = field.utf8.startIndex
        let utf8 = field.utf8
        while i < utf8.endIndex {
            if utf8[i] == UInt8(ascii: "%"), let end = utf8.index(i, offsetBy: 3, limitedBy: utf8.endIndex),
                let byte = UInt8(String(decoding: utf8[utf8.index(after: i)..<end], as: UTF8.self), radix: 16)
            {
                bytes.append(byte)
                i = end
            } else {
                bytes.append(utf8[i])
                i = utf8.index(after: i)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func parse(_ line: Substring) -> CTFTraceReader.LiveSession? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 5, let streams = UInt64(fields[3]), let clients = UInt64(fields[4]) else { return nil }
        return CTFTraceReader.LiveSession(
            url: decode(fields[0]), hostname: decode(fields[1]), name: decode(fields[2]), streams: streams, clients: clients)
    }
}

/// The time a relay daemon has to answer each step of a live read (connect, list, attach, each
/// read): `TRANSDUCE_LIVE_TIMEOUT` seconds, 10 by default, set by `live --timeout`.
enum LiveBudget {
    static let variable = "TRANSDUCE_LIVE_TIMEOUT"
    static let defaultSeconds = 10.0

    static var seconds: Double {
        guard let value = getenv(variable), let seconds = Double(String(cString: value)), seconds > 0 else {
            return defaultSeconds
        }
        return seconds
    }

    static var description: String { formatSeconds(seconds) }

    static func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// When the child last heard from its relay daemon (``MonotonicClock`` nanoseconds).
    private static let heard = Atomic<UInt64>(0)

    /// Notes that the relay daemon answered (an event, or "no new data yet").
    static func progress() { heard.store(MonotonicClock.now(), ordering: .relaxed) }

    /// In a reader child: ends the child (exit 65, the reason on standard error) once the relay
    /// daemon at `url` has said nothing for ``seconds``, however babeltrace2 is waiting on it.
    static func startWatchdog(url: String) {
        progress()
        let limit = UInt64(seconds * 1e9)
        let message =
            "error: \(url): the relay daemon did not answer within \(description) "
            + "(set live --timeout for more)\n"
        Thread.detachNewThread {
            while true {
                usleep(100_000)
                let last = heard.load(ordering: .relaxed)
                if expired(heard: last, now: MonotonicClock.now(), limit: limit) {
                    Terminal.errorRaw(message)
                    _exit(65)
                }
            }
        }
    }

    /// Whether a relay daemon last heard from at `heard` has said nothing for more than `limit`
    /// nanoseconds at `now`. Never when `now` reads before `heard`: the reading thread can note
    /// progress between the watchdog's two reads, and two threads' reads of the clock can come
    /// out a few nanoseconds apart the wrong way (a wrapped difference once ended a live reader
    /// two seconds in, saying its relay daemon had not answered for ten).
    static func expired(heard: UInt64, now: UInt64, limit: UInt64) -> Bool {
        MonotonicClock.nanos(from: heard, to: now) > limit
    }
}
