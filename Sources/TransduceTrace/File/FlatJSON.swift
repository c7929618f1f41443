/// A parser for flat JSON objects of strings and non-negative integers (the JSON Lines form).
enum FlatJSON {
    enum Value: Equatable {
        case string(String)
        case number(UInt64)
        case other
    }

    enum Error: Swift.Error, CustomStringConvertible {
        case message(String)
        var description: String {
            switch self {
            case .message(let m): m
            }
        }
    }

    static func parse(_ bytes: ArraySlice<UInt8>) throws -> [String: Value] {
        var i = bytes.startIndex
        let end = bytes.endIndex
        func skip() { while i < end, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0D { i += 1 } }
        func expect(_ byte: UInt8, _ what: String) throws {
            skip()
            guard i < end, bytes[i] == byte else { throw Error.message("expected \(what) at column \(i - bytes.startIndex + 1)") }
            i += 1
        }
        func string() throws -> String {
            try expect(0x22, "a string")
            var out: [UInt8] = []
            while i < end {
                let b = bytes[i]
                i += 1
                switch b {
                case 0x22: return String(decoding: out, as: UTF8.self)
                case 0x5C:
                    guard i < end else { break }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case 0x22, 0x5C, 0x2F: out.append(e)
                    case 0x6E: out.append(0x0A)
                    case 0x72: out.append(0x0D)
                    case 0x74: out.append(0x09)
                    case 0x62: out.append(0x08)
                    case 0x66: out.append(0x0C)
                    case 0x75:
                        guard i + 4 <= end, let code = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16)
                        else { throw Error.message("bad \\u escape") }
                        i += 4
                        var value = code
                        // A UTF-16 surrogate pair, \uD83D\uDE00, is one scalar.
                        if (0xD800..<0xDC00).contains(code), i + 6 <= end, bytes[i] == 0x5C, bytes[i + 1] == 0x75,
                            let low = UInt32(String(decoding: bytes[(i + 2)..<(i + 6)], as: UTF8.self), radix: 16),
                            (0xDC00..<0xE000).contains(low)
                        {
                            value = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            i += 6
                        }
                        let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: throw Error.message("bad escape")
                    }
                default: out.append(b)
                }
            }
            throw Error.message("unterminated string")
        }
        var object: [String: Value] = [:]
        try expect(0x7B, "'{'")
        skip()
        if i < end, bytes[i] == 0x7D {
            i += 1
        } else {
            while true {
                let key = try string()
                try expect(0x3A, "':'")
                skip()
                guard i < end else { throw Error.message("missing value for \"\(key)\"") }
                if bytes[i] == 0x22 {
                    object[key] = .string(try string())
                } else if bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                    var value: UInt64 = 0
                    while i < end, bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                        let (m, o1) = value.multipliedReportingOverflow(by: 10)
                        let (a, o2) = m.addingReportingOverflow(UInt64(bytes[i] - 0x30))
                        guard !o1 && !o2 else { throw Error.message("number too large for \"\(key)\"") }
                        value = a
                        i += 1
                    }
                    object[key] = .number(value)
                } else {
                    // true/false/null/negative/nested: not part of the schema.
                    throw Error.message("unsupported value for \"\(key)\"")
                }
                skip()
                guard i < end else { throw Error.message("unterminated object") }
                if bytes[i] == 0x2C {
                    i += 1
                    continue
                }
                try expect(0x7D, "',' or '}'")
                break
            }
        }
        skip()
        guard i == end else { throw Error.message("trailing characters after the object") }
        return object
    }
}
