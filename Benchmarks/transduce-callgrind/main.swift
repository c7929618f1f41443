// transduce-callgrind: the loops that Benchmarks/callgrind.sh runs under valgrind.
//   transduce-callgrind record N   N ring-buffer records
//   transduce-callgrind send N     N uncontended sends on BaseRuntime, from a detached task
// The main thread waits on a semaphore instead of running an async main: valgrind 3.19 crashes
// on the sigsuspend that parks the main thread of an async main.
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments.dropFirst()
guard let mode = arguments.first, ["record", "send"].contains(mode),
    let n = Int(arguments.dropFirst().first ?? ""), n > 0
else {
    print("usage: transduce-callgrind record|send COUNT")
    exit(64)
}
if mode == "record" {
    CallgrindTargets.recordLoop(n)
} else {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await CallgrindTargets.sendLoop(n)
        done.signal()
    }
    done.wait()
}
