#if canImport(Glibc)
    import Glibc
#endif

/// Strings to and from C as the C shims (libcurl's, readdir's) take and give them.
extension String {
    /// The text of a fixed-size C `char` array field (a tuple to Swift: `d_name`, a shim's
    /// message buffer), up to its first NUL, decoded as UTF-8 (repairing what is not).
    package init<Field>(cField field: Field) {
        self = withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// Calls `body` with `strings` as an array of C strings that live for the call.
package func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer(body)
}

extension Optional<String> {
    /// Calls `body` with the text as a C string, or with `NULL` for `nil`.
    package func withOptionalCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .some(let text): text.withCString(body)
        case .none: body(nil)
        }
    }
}
