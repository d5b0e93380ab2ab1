package dev.idemlab.provider.http;

import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers the errors Jetty raises itself (a malformed request, a header too large) with a problem
 * body too, never a page or a stack trace.
 */
final class ProblemErrorHandler extends ErrorHandler {

    ProblemErrorHandler() {
        setShowStacks(false);
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
            Callback callback) {
        ProviderRoutes.problem(response, callback, Problem.httpError(code, message));
    }
}
