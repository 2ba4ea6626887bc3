import HTTPTypes
package import Hummingbird

/// Headers that lock down what a browser does with positiond's answers, on every response, errors
/// included.
///
/// - The pages (HTML) may run only their own scripts and styles, load images from positiond or the object
///   URLs they make, talk only to positiond (the live feed's WebSocket included), and may not be framed.
/// - Everything else (the API's JSON, the scripts, and above all a floor plan, which may be an SVG opened
///   on its own in positiond's origin, where the pages keep the API key) runs nothing and loads nothing
///   but inline images: even an SVG plan that slipped past the import's sanitising is inert.
/// - No answer is sniffed into another type, and no page sends its address (which names the venue and
///   the survey session) to another site.
package struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var pagePolicy: String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    package static var documentPolicy: String { "default-src 'none'; img-src data:; style-src 'unsafe-inline'" }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        let isPage = response.headers[.contentType]?.hasPrefix("text/html") == true
        response.headers[.contentSecurityPolicy] = isPage ? Self.pagePolicy : Self.documentPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        if isPage { response.headers[.xFrameOptions] = "DENY" }
        return response
    }
}

extension HTTPField.Name {
    package static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    package static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}
