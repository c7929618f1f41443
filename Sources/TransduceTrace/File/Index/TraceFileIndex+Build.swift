extension TraceFileIndex {
    /// Builds the index of the file `reader` reads, from where it stands (a new reader: the
    /// file's start) to its end or first damage, handing every event to `each` as well (a caller
    /// that checks them adds its notes to ``notes``).
    ///
    /// Memory: the checkpoints and spans, and per runtime what is open (queued admissions, live
    /// tasks, the last cycles that left), as `RequestWindows` follows it.
    /// A place to start again is kept every `every` events or so (tests make them dense).
    package static func build(
        reader: TraceFileReader, identity: Identity, every: Int = interval,
        each: (TraceEvent) -> Void = { _ in }
    ) -> TraceFileIndex {
        let checkpoints = Checkpoints()
        var builder = Builder(checkpoints: checkpoints)
        // A place to start again every `every` events or so (at the first chunk start past
        // that): a trace of many processes has a chunk every few events.
        reader.onEventsChunk = { point in
            if let last = checkpoints.list.last, point.position - last.position < every { return }
            checkpoints.list.append(point)
        }
        reader.forEach { event in
            builder.consume(event)
            each(event)
        }
        reader.onEventsChunk = nil
        let runtimes = builder.followers.keys.map {
            Runtime(key: $0, highestDispatch: builder.followers.state($0)?.highest)
        }
        return TraceFileIndex(
            identity: identity, events: builder.position, firstTime: builder.firstTime, notes: reader.notes,
            strings: reader.definedStrings, hosts: reader.hosts, checkpoints: checkpoints.list,
            spans: builder.spans, runtimes: runtimes)
    }

    /// One runtime as the index follows it.
    private struct Follower {
        var gate = RequestWindows.Runtime()
        /// Live tasks' spawn positions in spawn order (ended ones are skipped lazily): the first
        /// live one is the earliest spawn a request may reach back to.
        var spawns: [(task: UInt64, position: Int)] = []
        var spawnsHead = 0
        /// The tasks that ended last, with their spawn positions: a task's re-entry is recorded
        /// just after its settle, and its view draws the task from its spawn.
        var ended: [(task: UInt64, position: Int)] = []
        var endedNext = 0
        static let endedKept = 64
        /// Its span in the current chunk, if it dispatched there.
        var span: Int?
        var highest: UInt64?

        /// The earliest spawn position of a live task.
        mutating func earliestLiveSpawn() -> Int? {
            while spawnsHead < spawns.count {
                let (task, position) = spawns[spawnsHead]
                if gate.tasks[task] == position {
                    // The ended ones' storage goes once they are more than half (a runtime per
                    // connection kept each spawn it ever made: 12 MB at 10M events in 78,126
                    // runtimes).
                    if spawnsHead >= 64 && spawnsHead * 2 > spawns.count {
                        spawns.removeFirst(spawnsHead)
                        spawnsHead = 0
                    }
                    return position
                }
                spawnsHead += 1
            }
            spawns = []
            spawnsHead = 0
            return nil
        }

        /// Follows `e` (at `position`) as `RequestWindows` does, keeping live tasks' spawns in
        /// order and the last ended tasks' spawns besides.
        mutating func follow(_ e: TraceEvent, at position: Int) {
            let endedSpawn = e.kind == .taskCancel || e.kind == .taskSettle ? gate.tasks[e.task] : nil
            gate.follow(e, at: position)
            if e.kind == .taskSpawn { spawns.append((e.task, position)) }
            if let spawn = endedSpawn {
                if ended.count < Self.endedKept { ended.append((e.task, spawn)) } else { ended[endedNext] = (e.task, spawn) }
                endedNext = (endedNext + 1) % Self.endedKept
            }
        }

        /// The spawn position of `task`, live or among the last ended.
        func spawn(of task: UInt64) -> Int? {
            gate.tasks[task] ?? ended.first { $0.task == task }?.position
        }
    }

    /// The places to start again, as the reader loads their chunks (before their events).
    private final class Checkpoints {
        var list: [TraceFileReader.Resume] = []
    }

    private struct Builder {
        let checkpoints: Checkpoints
        var followers = PerRuntime<Follower>()
        var spans = Spans()
        var position = 0
        var firstTime: UInt64?

        mutating func consume(_ e: TraceEvent) {
            defer { position += 1 }
            firstTime = min(firstTime ?? e.time, e.time)
            let i = followers.slot(e.runtimeKey) { Follower() }
            if e.kind == .dispatch {
                var from = followers[slot: i].gate.windowStart(dispatchedAt: e.time, position: position)
                if let spawn = followers[slot: i].earliestLiveSpawn() { from = min(from, spawn) }
                if e.otherTask != 0, let spawn = followers[slot: i].spawn(of: e.otherTask) { from = min(from, spawn) }
                let chunk = checkpoints.list.count - 1
                if let s = followers[slot: i].span, s < spans.count, spans[s].checkpoint == chunk {
                    let ids = spans[s].dispatches
                    spans[s].dispatches = min(ids.lowerBound, e.dispatch)...max(ids.upperBound, e.dispatch)
                    spans[s].from = min(spans[s].from, from)
                } else {
                    followers[slot: i].span = spans.count
                    spans.append(Span(checkpoint: chunk, runtime: e.runtimeKey, dispatches: e.dispatch...e.dispatch, from: from))
                }
                followers[slot: i].highest = max(followers[slot: i].highest ?? 0, e.dispatch)
            }
            // After the dispatch's window start: that is asked of the gate before it is queued.
            followers[slot: i].follow(e, at: position)
        }
    }
}
