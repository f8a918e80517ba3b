import Testing
import Transport

/// `WeakReference` is how a socket's callbacks and timers reach their owner without keeping it alive.
@Suite struct WeakReferenceTests {
    final class Owner {}

    @Test func refersToItsObjectUntilTheObjectIsFreed() {
        var owner: Owner? = Owner()
        let reference = WeakReference(owner!)
        #expect(reference.object === owner)
        owner = nil
        #expect(reference.object == nil, "the reference kept its object alive")
    }
}
