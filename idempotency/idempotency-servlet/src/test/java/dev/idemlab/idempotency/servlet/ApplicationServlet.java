package dev.idemlab.idempotency.servlet;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Map;

/** An {@link Application} as a servlet: the downstream key from the filter's request attribute. */
final class ApplicationServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient Application app;

    ApplicationServlet(Application app) {
        this.app = app;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        byte[] body = request.getInputStream().readAllBytes();
        Application.Answer answer;
        try {
            answer = app.post(request.getRequestURI(), body,
                    (String) request.getAttribute(IdempotencyFilter.DOWNSTREAM_KEY_ATTRIBUTE));
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        write(response, answer);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        write(response, app.get(request.getRequestURI()));
    }

    private static void write(HttpServletResponse response, Application.Answer answer) throws IOException {
        response.setStatus(answer.status());
        for (Map.Entry<String, String> header : answer.headers().entrySet()) {
            response.setHeader(header.getKey(), header.getValue());
        }
        response.getOutputStream().write(answer.body());
    }
}
