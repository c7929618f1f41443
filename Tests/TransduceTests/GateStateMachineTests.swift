import Testing

@testable import Transduce

/// The gate as a plain value: every transition, without tasks or locks.
@Suite struct GateStateMachineTests {
    typealias Gate = GateStateMachine<Int, Int>

    @Test func anIdleGateWithNothingQueuedIsClaimedInline() {
        var gate = Gate(capacity: 4)
        #expect(gate.holder == .idle)
        let r1 = gate.claimInline()
        #expect(r1)
        #expect(gate.holder == .inline)
        // Held: the next caller queues.
        let r2 = gate.claimInline()
        #expect(!r2)
        let r3 = gate.accept(1)
        #expect(r3 == .init(depth: 1, gateWasIdle: false))
        // Released with an admission waiting: a drain task takes the gate over.
        let r4 = gate.releaseInline()
        #expect(r4)
        #expect(gate.holder == .idle)
        gate.drainStarted(7)
        #expect(gate.holder == .drainTask(7))
        let r5 = gate.next()
        #expect(r5! == (1, 0))
        let r6 = gate.next()
        #expect(r6 == nil)
        // The queue is empty: the drain task lets go of the gate.
        gate.drainEnded()
        #expect(gate.holder == .idle)
    }

    @Test func releasingWithNothingQueuedLeavesTheGateIdle() {
        var gate = Gate(capacity: 4)
        let r7 = gate.claimInline()
        #expect(r7)
        let r8 = gate.releaseInline()
        #expect(!r8)
        #expect(gate.holder == .idle)
        let r9 = gate.claimInline()
        #expect(r9)
    }

    @Test func acceptingIntoAnIdleGateAsksForADrainTask() {
        var gate = Gate(capacity: 4)
        let r10 = gate.accept(1)
        #expect(r10 == .init(depth: 1, gateWasIdle: true))
        // Until the drain task holds it, the gate is idle; a second accept asks again.
        let r11 = gate.accept(2)
        #expect(r11 == .init(depth: 2, gateWasIdle: true))
        gate.drainStarted(7)
        let r12 = gate.accept(3)
        #expect(r12 == .init(depth: 3, gateWasIdle: false))
        let r13 = gate.claimInline()
        #expect(!r13)
        let r14 = gate.next()
        #expect(r14! == (1, 2))
        let r15 = gate.next()
        #expect(r15! == (2, 1))
        let r16 = gate.next()
        #expect(r16! == (3, 0))
        let r17 = gate.next()
        #expect(r17 == nil)
    }

    @Test func aDrainTaskThatCouldNotStartLeavesTheGateIdle() {
        var gate = Gate(capacity: 4)
        let r18 = gate.accept(1)
        #expect(r18.gateWasIdle)
        #expect(gate.holder == .idle)
        // Something is queued, so no inline claim may overtake it.
        let r19 = gate.claimInline()
        #expect(!r19)
    }

    @Test func backPressureKeepsOrderAndRefusesPosts() {
        var gate = Gate(capacity: 2)
        _ = gate.accept(1)
        gate.drainStarted(7)
        _ = gate.accept(2)
        #expect(gate.refusesPost)
        // Full: awaited admissions wait in the overflow, counted in the depth.
        let r20 = gate.accept(3)
        #expect(r20 == .init(depth: 3, gateWasIdle: false))
        let r21 = gate.accept(4)
        #expect(r21 == .init(depth: 4, gateWasIdle: false))
        #expect(gate.overflow.count == 2)
        // Each cycle's room goes to the oldest waiting admission.
        let r22 = gate.next()
        #expect(r22! == (1, 2))
        #expect(gate.overflow.count == 1)
        #expect(gate.refusesPost)
        let r23 = gate.next()
        #expect(r23! == (2, 2))
        // The overflow is empty, but the queue is full again: posts stay refused.
        #expect(gate.overflow.isEmpty && gate.refusesPost)
        let r24 = gate.next()
        #expect(r24! == (3, 1))
        #expect(!gate.refusesPost)
        let r25 = gate.next()
        #expect(r25! == (4, 0))
    }

    @Test func aStopTakesEveryWaitingAdmissionOldestFirst() {
        var gate = Gate(capacity: 2)
        _ = gate.accept(1)
        gate.drainStarted(7)
        for i in 2...4 { _ = gate.accept(i) }
        let r26 = gate.removeAll()
        #expect(r26 == [1, 2, 3, 4])
        #expect(gate.depth == 0)
        // The drain task then ends because the runtime stopped.
        gate.drainEnded()
        #expect(gate.holder == .idle)
    }

    @Test func anInlineCycleMovesToADrainTask() {
        var gate = Gate(capacity: 2)
        let r27 = gate.claimInline()
        #expect(r27)
        gate.handInline(to: 7)
        #expect(gate.holder == .drainTask(7))
        let r28 = gate.accept(1)
        #expect(r28 == .init(depth: 1, gateWasIdle: false))
    }
}
