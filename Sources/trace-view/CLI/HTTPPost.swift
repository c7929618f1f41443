import Transduce

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP/1.1 POST to an `http://` URL on a connection of its own, within one deadline for
/// connecting, sending and reading the whole answer: what `export --otlp-endpoint` sends each
/// batch of spans with (OTLP/HTTP; no TLS: a local OpenTelemetry Collector forwards over TLS
/// where needed). Whatever answers is read by ``HTTPAnswer``, which no peer can crash or hold:
/// a server that never answers, or drips its answer a byte at a time, ends the POST at the
/// deadline.
struct HTTPPost: CustomStringConvertible {
    let host: String
    let port: String
    let path: String
    /// Seconds the whole POST may take: connecting, sending, and the whole answer.
    var timeout = 10.0

    /// The endpoint of `url` (`http://HOST[:PORT][/PATH]`); a URL without a path gets
    /// `defaultPath`. A wrong URL is a usage error.
    init(url: String, defaultPath: String) throws {
        guard url.hasPrefix("http://") else {
            if url.hasPrefix("https://") {
                throw CLIError.usage(
                    "\(url): https is not supported: send to a local collector's http endpoint (an OpenTelemetry "
                        + "Collector on localhost:4318 forwards over TLS)")
            }
            throw CLIError.usage("\(url) is not an http:// URL")
        }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        var host = Substring(authority)
        var port: Substring = "80"
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty, let number = Int(port), (1...65535).contains(number),
            !url.contains(where: { $0 == " " || $0.asciiValue.map { $0 < 0x20 } ?? false })
        else { throw CLIError.usage("\(url) is not an http://HOST[:PORT][/PATH] URL") }
        self.host = String(host)
        self.port = String(number)
        self.path = path.isEmpty || path == "/" ? defaultPath : String(path)
    }

    /// `HOST:PORT/PATH`, for messages.
    var description: String { "\(host):\(port)\(path)" }

    /// What the server answered: its status code, the start of its body (for messages), and
    /// for a 2xx an OTLP partial success's count of rejected spans and its message.
    struct Response {
        var status: Int
        var body: String
        var rejectedSpans: UInt64 = 0
        var rejectionMessage = ""
    }

    /// Why a POST got no answer.
    struct Failure: Error {
        var reason: String
    }

    /// POSTs `body` as `contentType`; the answer, whatever its status.
    func post(_ body: [UInt8], contentType: String) throws(Failure) -> Response {
        let deadline = Deadline(seconds: timeout)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, port, &hints, &found)
        guard resolved == 0, let first = found else {
            throw Failure(reason: "cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(found) }
        var reason = "no address"
        var address: UnsafeMutablePointer<addrinfo>? = first
        while let a = address {
            address = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            // Linux bounds a blocking connect by the send time limit.
            guard deadline.limit(fd, SO_SNDTIMEO), connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 else {
                reason =
                    deadline.passed
                    ? "cannot connect to \(host):\(port) within \(seconds) s"
                    : "cannot connect to \(host):\(port): \(String(cString: strerror(errno)))"
                continue
            }
            let head =
                "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: \(contentType)\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\nUser-Agent: trace-view\r\n\r\n"
            guard write(fd, Array(head.utf8), deadline), write(fd, body, deadline) else {
                throw Failure(
                    reason: deadline.passed
                        ? "sending to \(host):\(port) took over \(seconds) s"
                        : "sending to \(host):\(port) failed: \(String(cString: strerror(errno)))")
            }
            return try read(fd, deadline)
        }
        throw Failure(reason: reason)
    }

    /// The time limit, for messages.
    private var seconds: String { timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout) }

    private func write(_ fd: Int32, _ bytes: [UInt8], _ deadline: Deadline) -> Bool {
        var sent = 0
        while sent < bytes.count {
            guard deadline.limit(fd, SO_SNDTIMEO) else { return false }
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// The whole answer (``HTTPAnswer``), by the deadline.
    private func read(_ fd: Int32, _ deadline: Deadline) throws(Failure) -> Response {
        var answer = HTTPAnswer()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while answer.state == .reading {
            guard deadline.limit(fd, SO_RCVTIMEO) else {
                throw Failure(reason: "no whole answer from \(host):\(port) within \(seconds) s")
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            if n < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || deadline.passed {
                    throw Failure(reason: "no whole answer from \(host):\(port) within \(seconds) s")
                }
                throw Failure(reason: "reading the answer of \(host):\(port) failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 {
                answer.close()
            } else {
                answer.consume(chunk[0..<n])
            }
        }
        switch answer.state {
        case .reading: preconditionFailure("the loop reads until the answer is whole or wrong")
        case .malformed(let why): throw Failure(reason: "\(host):\(port) \(why)")
        case .complete(let status, let body, _):
            var response = Response(status: status, body: String(String(decoding: body.prefix(300), as: UTF8.self)))
            if (200..<300).contains(status), let partial = PartialSuccess(body) {
                response.rejectedSpans = partial.rejectedSpans
                response.rejectionMessage = partial.message
            }
            return response
        }
    }
}

/// A point in time a POST must end by, and the socket time limits that keep to it.
private struct Deadline {
    let end: UInt64

    init(seconds: Double) { end = MonotonicClock.now() &+ UInt64(max(0.001, seconds) * 1e9) }

    var passed: Bool { MonotonicClock.now() >= end }

    /// Sets `fd`'s `option` (`SO_SNDTIMEO` or `SO_RCVTIMEO`) to the time left; `false` when none is.
    func limit(_ fd: Int32, _ option: Int32) -> Bool {
        let now = MonotonicClock.now()
        guard now < end else { return false }
        let left = max(end - now, 1_000_000)  // a zero limit would mean none
        var value = timeval(tv_sec: Int(left / 1_000_000_000), tv_usec: Int(left % 1_000_000_000 / 1000))
        return setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size)) == 0
    }
}
