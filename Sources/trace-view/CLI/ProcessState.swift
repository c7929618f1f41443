#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether process `pid` has ended: gone, or a zombie its parent has not reaped (a daemon killed
/// under another daemon stays one). `kill(pid, 0)` says yes to a zombie.
func processEnded(_ pid: pid_t) -> Bool {
    #if os(Linux)
        guard let file = fopen("/proc/\(pid)/stat", "rb") else { return true }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 512)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return true }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // "PID (NAME) STATE …": the state follows the last ')' (a name may hold one).
        guard let close = text.lastIndex(of: ")") else { return true }
        let state = text[text.index(after: close)...].drop { $0 == " " }.first
        return state == "Z" || state == "X"
    #else
        return kill(pid, 0) != 0
    #endif
}
