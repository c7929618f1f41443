#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes every byte of `bytes` to `descriptor`: what write(2) took in part is followed by the
/// rest, and a write a signal interrupted is made again. Returns false at the first error (a
/// reader that went, a full disk), with `errno` saying which. The one write loop of the package's
/// tools: standard output and error, the terminal, the CTF reader child's pipe, the index file.
package func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if n > 0 {
            offset += n
        } else if n < 0 && errno == EINTR {
            continue
        } else {
            return false
        }
    }
    return true
}
