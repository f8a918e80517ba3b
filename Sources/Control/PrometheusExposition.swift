import Prometheus
import Synchronization

/// Writes samples in the Prometheus text format (0.0.4) through swift-prometheus's registry; one per control
/// endpoint, so that its series are made once and only updated on each scrape.
///
/// The target's statistics are cumulative: a counter is incremented by what it grew since the last scrape (made again
/// from zero if it went down: a new session under the same labels), a gauge set. A series absent from a scrape (a
/// viewer that left) is removed from the registry.
final class PrometheusExposition: Sendable {
    /// The Content-Type of the text format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private struct Key: Hashable {
        var name: String
        var labels: [String]
    }

    private struct Shape: Equatable {
        var kind: MetricSample.Kind
        var help: String
        var labeled: Bool
    }

    private struct State {
        var registry = PrometheusCollectorRegistry()
        var shapes: [String: Shape] = [:]
        var counters: [Key: (counter: Counter, value: Double)] = [:]
        var gauges: [Key: Gauge] = [:]
    }

    private let state = Mutex(State())

    /// Creates an empty exposition.
    init() {}

    /// The exposition of `samples`, after updating the series they name.
    ///
    /// The registry stops the process on a name used with two kinds, two HELP texts, or with and without labels; a
    /// sample that disagrees so with the first of its name is left out instead.
    /// - Parameter samples: The values.
    /// - Returns: The text, one `# HELP`/`# TYPE` header per metric name.
    func text(_ samples: [MetricSample]) -> String {
        state.withLock { state in
            var seenCounters = Set<Key>()
            var seenGauges = Set<Key>()
            for sample in samples {
                let shape = Shape(kind: sample.kind, help: sample.help, labeled: !sample.labels.isEmpty)
                if let first = state.shapes[sample.name] {
                    guard first == shape else { continue }
                } else {
                    state.shapes[sample.name] = shape
                }
                let key = Key(name: sample.name, labels: sample.labels.flatMap { [$0.name, $0.value] })
                let descriptor = MetricNameDescriptor(metricName: sample.name, unitName: "", helpText: sample.help)
                let labels = sample.labels.map { ($0.name, $0.value) }
                switch sample.kind {
                case .counter:
                    guard seenCounters.insert(key).inserted else { continue }
                    let value = max(0, sample.value)
                    if let (counter, last) = state.counters[key], value >= last {
                        counter.increment(by: value - last)
                        state.counters[key] = (counter, value)
                    } else {
                        if let (stale, _) = state.counters[key] { state.registry.unregisterCounter(stale) }
                        let counter = state.registry.makeCounter(descriptor: descriptor, labels: labels)
                        counter.increment(by: value)
                        state.counters[key] = (counter, value)
                    }
                case .gauge:
                    guard seenGauges.insert(key).inserted else { continue }
                    let gauge = state.gauges[key] ?? state.registry.makeGauge(descriptor: descriptor, labels: labels)
                    gauge.set(to: sample.value)
                    state.gauges[key] = gauge
                }
            }
            for (key, entry) in state.counters where !seenCounters.contains(key) {
                state.registry.unregisterCounter(entry.counter)
                state.counters[key] = nil
            }
            for (key, gauge) in state.gauges where !seenGauges.contains(key) {
                state.registry.unregisterGauge(gauge)
                state.gauges[key] = nil
            }
            var buffer: [UInt8] = []
            buffer.reserveCapacity(samples.count * 96)
            state.registry.emit(into: &buffer)
            return String(decoding: buffer, as: UTF8.self)
        }
    }
}
