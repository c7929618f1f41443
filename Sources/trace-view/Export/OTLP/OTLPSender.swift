import TraceInputs
import Transduce
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#endif

/// Sends an export's batches to a collector as they come, each within the settings' time
/// limit, retrying as ``ExportRetry`` says; stops at the first batch the collector does not take,
/// saying how far it got and how to send the rest; counts what the collector took but rejected
/// (a partial success). The shell around ``OTLPConnection`` and ``ExportRetry``: it sleeps, posts
/// and prints, and decides nothing itself.
final class OTLPSender {
    let settings: OTLPSettings
    let allowPartial: Bool
    private let connection: OTLPConnection
    /// The export's requests, and the position it starts at (`--resume-at`).
    private let total: Int
    private let first: Int
    private var tally = Tally()
    private var failure: CLIError?

    /// What the sending came to, for the closing line.
    struct Tally {
        /// The position up to which the collector took the requests.
        var requests = 0
        var posts = 0
        var retries = 0
        var bytes = 0
        var rejected: UInt64 = 0
        var rejections: [String] = []
    }

    /// A sender of an export of `total` requests from position `first` on.
    init(settings: OTLPSettings, allowPartial: Bool, total: Int, from first: Int) throws {
        guard first <= total else {
            throw CLIError.usage("--resume-at \(first) is past the export's \(total) requests")
        }
        self.settings = settings
        self.allowPartial = allowPartial
        self.total = total
        self.first = first
        tally.requests = first
        connection = OTLPConnection(settings)
    }

    /// The endpoint without any user name or password, for messages.
    var shownEndpoint: String {
        let url = settings.endpoint
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + String(rest[rest.index(after: at)...])
    }

    /// Sends one batch (the export's `requests`); `false` once the export has failed (the
    /// export stops there, and ``finish()`` throws why).
    func send(_ body: [UInt8], _ requests: Range<Int>) -> Bool {
        guard failure == nil else { return false }
        do {
            try sendBatch(body, requests)
            return true
        } catch {
            failure = error as? CLIError ?? CLIError("\(error)", .collectorFailed)
            return false
        }
    }

    /// Says what was sent; throws what stopped the export, or the spans the collector rejected.
    func finish() throws {
        if let failure { throw failure }
        let wire = settings.compression == .gzip ? "gzip, " : ""
        let summary =
            "\(tally.posts) POST\(tally.posts == 1 ? "" : "s"), \(tally.bytes) bytes (\(wire)\(settings.encoding.contentType))"
            + (tally.retries > 0 ? ", \(tally.retries) retr\(tally.retries == 1 ? "y" : "ies")" : "")
        guard tally.rejected == 0 && tally.rejections.isEmpty else {
            let why = tally.rejections.isEmpty ? "" : ": " + tally.rejections.joined(separator: "; ")
            let message =
                "the collector at \(shownEndpoint) took the spans of \(tally.requests - first) requests but rejected "
                + "\(tally.rejected) span\(tally.rejected == 1 ? "" : "s")\(why)"
            if allowPartial {
                Terminal.error("trace-view: warning: " + message + " (\(summary))")
                return
            }
            throw CLIError(message + " (--allow-partial accepts that)", .spansRejected)
        }
        Terminal.error("trace-view: sent the spans of \(tally.requests - first) requests to \(shownEndpoint): \(summary)")
    }

    /// POSTs one batch until it is taken, retried as ``ExportRetry`` says, or throws what ended
    /// it.
    private func sendBatch(_ encoded: [UInt8], _ requests: Range<Int>) throws {
        let body: [UInt8]
        if settings.compression == .gzip {
            guard let compressed = OTLPConnection.gzip(encoded) else {
                throw CLIError("zlib could not compress a batch of \(encoded.count) bytes", .internalError)
            }
            body = compressed
        } else {
            body = encoded
        }
        var retry = ExportRetry(deadline: MonotonicClock.now() &+ UInt64(settings.timeout * 1e9))
        while true {
            let answer = connection.post(body, within: retry.left(at: MonotonicClock.now()))
            tally.posts += 1
            tally.bytes += body.count
            let action = retry.next(after: answer.outcome, now: MonotonicClock.now(), jitter: Double.random(in: 0.8...1.2))
            switch action {
            case .sent:
                tally.requests = requests.upperBound
                let protobuf = answer.contentType.lowercased().contains("protobuf")
                if let partial = PartialSuccess(answer.body, protobuf: protobuf) {
                    let (sum, overflow) = tally.rejected.addingReportingOverflow(partial.rejectedSpans)
                    tally.rejected = overflow ? .max : sum
                    if !partial.message.isEmpty, tally.rejections.count < 3, !tally.rejections.contains(partial.message) {
                        tally.rejections.append(partial.message)
                    }
                }
                return
            case .retry(let nanos):
                tally.retries += 1
                Terminal.error(
                    "trace-view: \(what(answer)); retrying in \(String(format: "%.1f", Double(nanos) / 1e9)) s "
                        + "(attempt \(retry.attempts + 1) of \(ExportRetry.maxAttempts))")
                Self.sleep(nanos)
            case .giveUp(let why):
                let resume = tally.requests > 0 ? "; to send the rest, add --resume-at \(tally.requests)" : ""
                throw CLIError(
                    "\(what(answer))\(why.isEmpty ? "" : ", \(why)") (it took \(tally.requests) of \(total) requests\(resume))",
                    .collectorFailed)
            }
        }
    }

    /// What an answer was, for messages.
    private func what(_ answer: OTLPConnection.Answer) -> String {
        switch answer.outcome {
        case .answered(let status, _):
            let said = Self.message(of: answer)
            return "the collector at \(shownEndpoint) answered \(status)\(said.isEmpty ? "" : ": " + said)"
        case .connectionFailed(let why): return "no answer from the collector at \(shownEndpoint): \(why)"
        case .failed(let why): return "the collector at \(shownEndpoint) gave no usable answer: \(why)"
        }
    }

    /// The text of an error answer: a protobuf `google.rpc.Status`'s message, or the body's start.
    static func message(of answer: OTLPConnection.Answer) -> String {
        if answer.contentType.lowercased().contains("protobuf") {
            var reader = ProtobufReader(answer.body[...])
            while let (field, value) = reader.next() {
                if field == 2, case .bytes(let text) = value {
                    return Escaping.oneLine(String(decoding: text.prefix(300), as: UTF8.self))
                }
            }
            return ""
        }
        return Escaping.oneLine(String(decoding: answer.body.prefix(300), as: UTF8.self))
    }

    private static func sleep(_ nanos: UInt64) {
        var left = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
        var rest = timespec()
        while nanosleep(&left, &rest) != 0 && errno == EINTR { left = rest }
    }
}
