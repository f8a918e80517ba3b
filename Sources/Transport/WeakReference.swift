/// A weak reference, so that a timer or a socket's callback does not keep its owner alive.
package final class WeakReference<Object: AnyObject> {
    /// The object, until it is freed.
    package weak var object: Object?

    /// Creates a weak reference.
    /// - Parameter object: the object to refer to.
    package init(_ object: Object) { self.object = object }
}
