import Foundation
import Testing

@testable import TransduceTrace

#if os(Linux)
    import CTraceRing
    import Glibc

    /// ``writeAll(_:_:)``, the tools' one write loop: a write a signal interrupts is finished.
    /// (Linux: the writer's state is read from /proc.)
    @Suite struct WriteAllTests {
        /// 4 MiB through a pipe to a reader that first, twenty times, waits for the writer to
        /// sleep (blocked on the full pipe) and sends it a signal whose handler is installed without
        /// `SA_RESTART`: the first ends the write with part of it written, each later one finds a
        /// write that wrote nothing yet and ends it with `EINTR`. Then it reads: every byte arrives,
        /// in order.
        @Test func aWriteThatSignalsInterruptIsFinished() throws {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            var previous = sigaction()
            #expect(sigaction(SIGURG, &action, &previous) == 0)
            defer { sigaction(SIGURG, &previous, nil) }

            var fds: [Int32] = [-1, -1]
            try #require(pipe(&fds) == 0)
            let (readEnd, writeEnd) = (fds[0], fds[1])
            let bytes = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
            let started = DispatchSemaphore(value: 0)
            let mayExit = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var writer = pthread_t()
            nonisolated(unsafe) var writerID: Int32 = 0
            nonisolated(unsafe) var wrote = false
            let thread = Thread {
                // (A thread of the test runner's pool may block signals; this one must take it.)
                var urgent = sigset_t()
                sigemptyset(&urgent)
                sigaddset(&urgent, SIGURG)
                pthread_sigmask(SIG_UNBLOCK, &urgent, nil)
                writer = pthread_self()
                writerID = Int32(bitPattern: clttng_thread_id())
                started.signal()
                wrote = bytes.withUnsafeBytes { writeAll(writeEnd, $0) }
                close(writeEnd)
                finished.signal()
                // Still running while the reader may signal it.
                mayExit.wait()
            }
            thread.start()
            started.wait()
            /// Whether the writer sleeps (its state in /proc: `S`), which it does only blocked on the pipe.
            func writerSleeps() -> Bool {
                guard let stat = try? String(contentsOfFile: "/proc/self/task/\(writerID)/stat", encoding: .utf8),
                    let end = stat.lastIndex(of: ")")
                else { return false }
                return stat[stat.index(end, offsetBy: 2)] == "S"
            }
            for _ in 0..<20 {
                let deadline = ContinuousClock.now + .seconds(30)
                while !writerSleeps() && ContinuousClock.now < deadline { sched_yield() }
                try #require(writerSleeps(), "the writer never blocked on the full pipe")
                pthread_kill(writer, SIGURG)
            }
            var received: [UInt8] = []
            received.reserveCapacity(bytes.count)
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                received += buffer[..<n]
            }
            close(readEnd)
            finished.wait()
            mayExit.signal()
            #expect(wrote)
            #expect(received.count == bytes.count)
            // (Compared apart: a failed expectation on two 4 MiB arrays would print their difference.)
            let same = received == bytes
            #expect(same)
        }
    }
#endif
