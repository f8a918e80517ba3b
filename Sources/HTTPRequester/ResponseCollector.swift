import NIOCore
import NIOHTTP1

/// Collects one reply, bounded in size; fails the promise when the connection ends before it is complete.
final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<HTTPExchange.Response>
    private let maximumBodySize: Int
    private let target: HTTPURL
    private let check: CertificateCheck
    private var url: String { target.description }
    private var response: HTTPExchange.Response?
    private var completed = false

    init(promise: EventLoopPromise<HTTPExchange.Response>, maximumBodySize: Int, url: HTTPURL, check: CertificateCheck) {
        self.promise = promise
        self.maximumBodySize = maximumBodySize
        self.target = url
        self.check = check
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !completed else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // 1xx interim replies (100 Continue) are not the reply.
            guard head.status.code >= 200 else { return }
            response = HTTPExchange.Response(
                status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, body: [])
        case .body(let part):
            guard var collected = response else { return }
            guard collected.body.count + part.readableBytes <= maximumBodySize else {
                finish(.failure(HTTPExchangeError.responseTooLarge(limit: maximumBodySize)))
                context.close(promise: nil)
                return
            }
            response = nil  // the body is appended in place, not copied
            collected.body.append(contentsOf: part.readableBytesView)
            response = collected
        case .end:
            guard let response else { return }
            finish(.success(response))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(HTTPExchangeError.noReply(url: url)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let tlsError = HTTPExchange.tlsError(error, url: target, check: check) {
            finish(.failure(tlsError))
        } else {
            finish(.failure(HTTPExchangeError.connectionFailed(
                url: url, reason: "malformed HTTP reply (\(HTTPExchange.reason(error)))")))
        }
        context.close(promise: nil)
    }

    private func finish(_ result: Result<HTTPExchange.Response, any Error>) {
        guard !completed else { return }
        completed = true
        promise.completeWith(result)
    }
}
