import CCurl
import TraceInputs
import Transduce
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#endif

/// The thin shell that POSTs to a collector over libcurl: one handle for the whole export, so
/// its connection is kept alive between batches; each POST bounded by the time it is given, its
/// answer's body kept to its first MiB. It decides nothing: ``ExportRetry`` does.
final class OTLPConnection {
    /// What came back from one POST.
    struct Answer {
        var outcome: ExportRetry.Outcome
        /// The answer's status (0 when there was none), its body's start and its Content-Type.
        var status: Int
        var body: [UInt8]
        var contentType: String
    }

    static let maxBody = 1 << 20

    private let handle: UnsafeMutableRawPointer?
    let settings: OTLPSettings
    /// `User-Agent`, `Content-Type`, `Content-Encoding` and the settings' headers.
    private let headerLines: [String]

    init(_ settings: OTLPSettings) {
        self.settings = settings
        handle = ccurl_open()
        var lines = [
            "Content-Type: \(settings.encoding.contentType)",
            "User-Agent: trace-view/\(PackageVersion.current) libcurl/\(String(cString: ccurl_version()))",
            // libcurl would otherwise wait for a 100 Continue before a large body.
            "Expect:",
        ]
        if settings.compression == .gzip { lines.append("Content-Encoding: gzip") }
        for header in settings.headers where !["content-type", "content-encoding", "expect"].contains(header.name) {
            lines.append("\(header.name): \(header.value)")
        }
        headerLines = lines
    }

    deinit { ccurl_close(handle) }

    /// POSTs `body` (already compressed as the settings say) within `nanos`.
    func post(_ body: [UInt8], within nanos: UInt64) -> Answer {
        var answer = ccurl_answer()
        let timeout = Int(min(nanos / 1_000_000, 3_600_000))
        withCStrings(headerLines) { headers in
            body.withUnsafeBufferPointer { bytes in
                settings.certificate.withOptionalCString { ca in
                    settings.clientCertificate.withOptionalCString { cert in
                        settings.clientKey.withOptionalCString { key in
                            settings.endpoint.withCString { url in
                                var request = ccurl_request(
                                    url: url, headers: headers.baseAddress, header_count: headers.count,
                                    body: bytes.baseAddress, body_length: bytes.count, timeout_ms: max(1, timeout),
                                    ca_file: ca, client_certificate: cert, client_key: key, max_body: Self.maxBody)
                                ccurl_post(handle, &request, &answer)
                            }
                        }
                    }
                }
            }
        }
        defer { ccurl_answer_free(&answer) }
        let bytes = answer.body.map { Array(UnsafeBufferPointer(start: $0, count: answer.body_length)) } ?? []
        let status = Int(answer.status)
        let error = Escaping.oneLine(String(cField: answer.error))
        let contentType = String(cField: answer.content_type)
        let outcome: ExportRetry.Outcome
        if answer.code == 0 || (answer.cut != 0 && status != 0) {
            // A whole answer, or one whose body ran past the first MiB (its status stands).
            let retryAfter = ExportRetry.retryAfter(String(cField: answer.retry_after), nowUnix: Self.unixNow) { text in
                let at = ccurl_date(text)
                return at < 0 ? nil : at
            }
            outcome = .answered(status: status, retryAfter: retryAfter)
        } else if answer.connection_failed != 0 {
            outcome = .connectionFailed(error)
        } else if answer.timed_out != 0 {
            outcome = .failed("no whole answer within the time limit (\(error))")
        } else {
            outcome = .failed(error)
        }
        return Answer(outcome: outcome, status: status, body: bytes, contentType: contentType)
    }

    private static var unixNow: Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// `body` as one gzip member.
    static func gzip(_ body: [UInt8]) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var count = 0
        let status = body.withUnsafeBufferPointer { ccurl_gzip($0.baseAddress, $0.count, &out, &count) }
        guard status == 0, let out else { return nil }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: count))
    }
}
