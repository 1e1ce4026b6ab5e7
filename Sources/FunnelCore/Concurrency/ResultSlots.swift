import Foundation

/// Slots filled by concurrent iterations (`DispatchQueue.concurrentPerform`), each index by
/// exactly one, read once they have all run.
public final class ResultSlots<Value: Sendable>: @unchecked Sendable {
    // Safe: `slots` is only touched while holding `lock`.
    private let lock = NSLock()
    private var slots: [Value?]

    public init(count: Int) { slots = Array(repeating: nil, count: count) }

    public func set(_ index: Int, _ value: Value) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    /// Every slot's value; each must have been set.
    public var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return slots.map { $0! }
    }
}
