#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP/1.1 POST to an `http://` URL on a connection of its own, with a time limit on
/// connecting, sending and each read: what `export --otlp-endpoint` sends each batch of spans
/// with (OTLP/HTTP; no TLS: a local OpenTelemetry Collector forwards over TLS where needed).
struct HTTPPost: CustomStringConvertible {
    let host: String
    let port: String
    let path: String
    /// Seconds each step may take.
    var timeout = 10

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

    /// What the server answered: its status code and the start of its body.
    struct Response {
        var status: Int
        var body: String
    }

    /// Why a POST got no answer.
    struct Failure: Error {
        var reason: String
    }

    /// POSTs `body` as `contentType`; the answer, whatever its status.
    func post(_ body: [UInt8], contentType: String) throws(Failure) -> Response {
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
            var limit = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            guard connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 else {
                reason = "cannot connect to \(host):\(port): \(String(cString: strerror(errno)))"
                continue
            }
            let head =
                "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: \(contentType)\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\nUser-Agent: trace-view\r\n\r\n"
            guard write(fd, Array(head.utf8)), write(fd, body) else {
                throw Failure(reason: "sending to \(host):\(port) failed: \(String(cString: strerror(errno)))")
            }
            return try read(fd)
        }
        throw Failure(reason: reason)
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// The answer's status line and the start of its body (at most 64 KiB is read).
    private func read(_ fd: Int32) throws(Failure) -> Response {
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        while answer.count < 1 << 16 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            if n < 0 {
                throw Failure(reason: "no answer from \(host):\(port) in \(timeout) s: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            answer += chunk[0..<n]
            // The head and a body of the length it says: no need to wait for the close.
            if let length = Self.complete(answer), answer.count >= length { break }
        }
        let text = String(decoding: answer, as: UTF8.self)
        let statusLine = text.prefix { $0 != "\r" && $0 != "\n" }
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/"), let status = Int(fields[1]) else {
            throw Failure(reason: "\(host):\(port) did not answer in HTTP")
        }
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return Response(status: status, body: String(body.prefix(300)))
    }

    /// The whole answer's length once its head has arrived and says its body's length.
    private static func complete(_ answer: [UInt8]) -> Int? {
        let text = String(decoding: answer.prefix(8192), as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).filter { $0 != " " && $0 != "\t" })
        else { return nil }
        return text.utf8.distance(from: text.startIndex, to: end.upperBound) + length
    }
}
