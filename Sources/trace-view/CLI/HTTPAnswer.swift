import TransduceTrace

/// An HTTP/1.1 answer read from bytes as they arrive, as a pure value: ``HTTPPost`` feeds it
/// what each `recv` got and stops when it says the answer is whole or wrong.
///
/// Whatever answers on the port is a peer that may lie: every number it sends is parsed with
/// overflow checks (a `Content-Length` of 2^63 or a chunk size of 20 hex digits is an error,
/// not a trap), a negative or doubled length is an error, and nothing is kept past
/// ``maxHead`` bytes of head and ``maxBody`` of body (a longer body is read no further: its start
/// is enough to say what the collector meant).
struct HTTPAnswer {
    /// The longest head (status line and fields) read.
    static let maxHead = 16 << 10
    /// The most of a body kept; the rest is not read.
    static let maxBody = 1 << 20

    /// What the bytes so far make.
    enum State: Equatable {
        /// The answer is not whole yet.
        case reading
        /// The answer, whole (or its body's first ``HTTPAnswer/maxBody`` bytes: `cut`).
        case complete(status: Int, body: [UInt8], cut: Bool)
        /// The bytes are not an HTTP answer this reader takes.
        case malformed(String)
    }

    private var bytes: [UInt8] = []
    private(set) var state = State.reading

    /// Takes the bytes one `recv` got; the new state.
    @discardableResult
    mutating func consume(_ chunk: some Collection<UInt8>) -> State {
        guard state == .reading else { return state }
        bytes.append(contentsOf: chunk)
        state = Self.parse(bytes, closed: false)
        return state
    }

    /// The peer closed the connection: an answer without a length ends here.
    @discardableResult
    mutating func close() -> State {
        guard state == .reading else { return state }
        state = Self.parse(bytes, closed: true)
        if state == .reading {
            state = .malformed(bytes.isEmpty ? "closed the connection without an answer" : "closed the connection mid-answer")
        }
        return state
    }

    private static func parse(_ bytes: [UInt8], closed: Bool) -> State {
        guard let headEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes[...]) else {
            return bytes.count > maxHead ? .malformed("sent a head longer than \(maxHead >> 10) KiB") : .reading
        }
        guard headEnd <= maxHead else { return .malformed("sent a head longer than \(maxHead >> 10) KiB") }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusFields = lines[0].split(separator: " ", maxSplits: 2)
        guard statusFields.count >= 2, statusFields[0].hasPrefix("HTTP/1."), statusFields[1].utf8.count == 3,
            let status = Int(statusFields[1]), (100...599).contains(status)
        else { return .malformed("did not answer in HTTP/1.x") }
        var length: Int?
        var chunked = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return .malformed("sent a header field without a colon") }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            switch name {
            case "content-length":
                guard let n = decimal(value) else {
                    return .malformed(
                        "sent a Content-Length that is not a length: \(Escaping.oneLine(String(value.prefix(40))))")
                }
                if let length, length != n { return .malformed("sent two different Content-Lengths") }
                length = n
            case "transfer-encoding":
                chunked = value.lowercased().split(separator: ",").last?.trimmingSpaces == "chunked"
            default: break
            }
        }
        let body = bytes[(headEnd + 4)...]
        // 1xx answers have no body; this client sends no Expect, so a 100 is only a peer's noise.
        if status < 200 || status == 204 || status == 304 { return .complete(status: status, body: [], cut: false) }
        if chunked { return dechunk(body, status: status, closed: closed) }
        if let length {
            if body.count >= min(length, maxBody) {
                return .complete(status: status, body: Array(body.prefix(min(length, maxBody))), cut: length > maxBody)
            }
            return closed
                ? .malformed("closed the connection \(length - body.count) bytes short of its Content-Length") : .reading
        }
        if body.count >= maxBody { return .complete(status: status, body: Array(body.prefix(maxBody)), cut: true) }
        return closed ? .complete(status: status, body: Array(body), cut: false) : .reading
    }

    /// A chunked body (RFC 9112 §7.1): hex sizes with overflow checks, extensions ignored.
    private static func dechunk(_ bytes: ArraySlice<UInt8>, status: Int, closed: Bool) -> State {
        var body: [UInt8] = []
        var i = bytes.startIndex
        while true {
            guard let lineEnd = find([0x0D, 0x0A], in: bytes[i...]) else {
                if bytes.endIndex - i > 1024 { return .malformed("sent a chunk size line longer than 1 KiB") }
                return closed ? .malformed("closed the connection mid-chunk") : .reading
            }
            let line = String(decoding: bytes[i..<lineEnd], as: UTF8.self)
            let sizeText = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingSpaces
            guard !sizeText.isEmpty, sizeText.utf8.count <= 8, let size = Int(sizeText, radix: 16), size >= 0 else {
                return .malformed("sent a chunk size that is not one: \(Escaping.oneLine(String(line.prefix(40))))")
            }
            let dataStart = lineEnd + 2
            if size == 0 { return .complete(status: status, body: body, cut: false) }
            let taken = min(size, maxBody - body.count, bytes.endIndex - dataStart)
            body += bytes[dataStart..<(dataStart + taken)]
            if body.count >= maxBody { return .complete(status: status, body: body, cut: true) }
            guard bytes.endIndex - dataStart >= size + 2 else {
                return closed ? .malformed("closed the connection mid-chunk") : .reading
            }
            guard bytes[dataStart + size] == 0x0D, bytes[dataStart + size + 1] == 0x0A else {
                return .malformed("sent a chunk longer than its size")
            }
            i = dataStart + size + 2
        }
    }

    /// A decimal length: digits only, at most 15 of them (a petabyte), so no sum overflows.
    private static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 15, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// Where `needle` first starts in `haystack` (an index of `haystack`'s), or `nil`.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var i = haystack.startIndex
        while i + needle.count <= haystack.endIndex {
            if haystack[i] == needle[0] && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space).
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
