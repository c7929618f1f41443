#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TraceFileIndex {
    /// The secret a user's indexes are signed with (HMAC-SHA-256 over the index's bytes), so an
    /// index is trusted only if this user's trace-view wrote it.
    ///
    /// An index is a cache of answers about a trace file, and whoever has the trace can compute
    /// its identity (size, time, checksums of its ends): a forged index with a valid identity
    /// and checksum renamed labels, shifted times and hid dispatches. The answers cannot be
    /// checked against the file without reading it up to each place (the strings an index hands
    /// a reader are defined anywhere before it), which is what the index saves; a signature
    /// with a key only its user can read can be checked in one pass over the index.
    ///
    /// The key is 32 random bytes in `$TRACE_VIEW_INDEX_KEY` if set, else
    /// `$XDG_CACHE_HOME/trace-view/index.key`, else `~/.cache/trace-view/index.key`, made on
    /// first use (mode 0600, its directory 0700). Without one (no home, a key file that is not
    /// a regular file of this user's with mode 0600), no index is trusted or kept: each view
    /// reads the whole trace.
    package struct Key: Sendable, Equatable {
        package let bytes: [UInt8]

        package init(bytes: [UInt8]) { self.bytes = bytes }

        /// The signature of `message`.
        func sign(_ message: [UInt8]) -> [UInt8] { SHA256.hmac(key: bytes, message) }

        /// The signature of `message`, read in place.
        func sign(_ message: UnsafeRawBufferPointer) -> [UInt8] { SHA256.hmac(key: bytes, message) }

        /// This user's key (made now if it does not exist yet), or nil when there is none to be had.
        package static let current: Key? = load()

        /// Where the key is kept, or nil without a home.
        static var path: String? {
            func variable(_ name: String) -> String? {
                getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            if let set = variable("TRACE_VIEW_INDEX_KEY") { return set }
            if let cache = variable("XDG_CACHE_HOME"), cache.hasPrefix("/") { return cache + "/trace-view/index.key" }
            if let home = variable("HOME"), home.hasPrefix("/") { return home + "/.cache/trace-view/index.key" }
            return nil
        }

        private static func load() -> Key? {
            guard let path else { return nil }
            if let key = readKey(path) { return key }
            // Made under a name of its own, then linked into place: of two processes making it at
            // once, one link wins and the other reads the winner's key.
            let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            makeDirectories(directory)
            let temporary = path + ".\(getpid()).tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { return nil }
            var random = SystemRandomNumberGenerator()
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            defer { unlink(temporary) }
            guard written == bytes.count else { return nil }
            _ = link(temporary, path)
            return readKey(path)
        }

        /// The key at `path`: a regular file (not a link) of this user's, readable by no one else,
        /// of 32 bytes.
        private static func readKey(_ path: String) -> Key? {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid(),
                info.st_mode & 0o077 == 0, info.st_size == 32
            else { return nil }
            var bytes = [UInt8](repeating: 0, count: 32)
            guard bytes.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, 32) }) == 32 else { return nil }
            return Key(bytes: bytes)
        }

        private static func makeDirectories(_ path: String) {
            var made = ""
            for part in path.split(separator: "/") {
                made += "/" + part
                mkdir(made, 0o700)
            }
        }
    }
}
