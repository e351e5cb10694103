package dev.lockstep.sample.web;

import java.io.ByteArrayInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a request body larger than {@code sample.max-request-body} with 413 and a problem detail
 * that names the limit, before any of it reaches a controller (or Redis, through a queued
 * import). A body that declares its length is refused on the header; one sent in chunks is read
 * up to the limit and refused as soon as it goes over.
 */
@Component
class RequestBodyLimit extends OncePerRequestFilter {

	private final long limit;

	private final JsonMapper json;

	RequestBodyLimit(@Value("${sample.max-request-body:64KB}") DataSize limit, JsonMapper json) {
		this.limit = limit.toBytes();
		this.json = json;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		long declared = request.getContentLengthLong();
		if (declared > this.limit) {
			refuse(request, response, "is " + declared + " bytes");
			return;
		}
		if (declared < 0 && request.getHeader("Transfer-Encoding") != null) {
			byte[] body = request.getInputStream().readNBytes((int) Math.min(this.limit + 1, Integer.MAX_VALUE - 8));
			if (body.length > this.limit) {
				refuse(request, response, "is over " + this.limit + " bytes");
				return;
			}
			chain.doFilter(new ReadBody(request, body), response);
			return;
		}
		chain.doFilter(request, response);
	}

	private void refuse(HttpServletRequest request, HttpServletResponse response, String size) throws IOException {
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", "about:blank");
		problem.put("title", "Request body too large");
		problem.put("status", HttpStatus.CONTENT_TOO_LARGE.value());
		problem.put("detail", "The request body " + size + "; this service takes at most " + this.limit
				+ " bytes (sample.max-request-body)");
		problem.put("instance", request.getRequestURI());
		response.setStatus(HttpStatus.CONTENT_TOO_LARGE.value());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		// the rest of an oversized body is not read: the connection closes after this answer
		response.setHeader("Connection", "close");
		response.getOutputStream().write(this.json.writeValueAsBytes(problem));
	}

	/** A request whose body was read already, within the limit. */
	private static final class ReadBody extends HttpServletRequestWrapper {

		private final byte[] body;

		ReadBody(HttpServletRequest request, byte[] body) {
			super(request);
			this.body = body;
		}

		@Override
		public ServletInputStream getInputStream() {
			ByteArrayInputStream in = new ByteArrayInputStream(this.body);
			return new ServletInputStream() {

				@Override
				public int read() {
					return in.read();
				}

				@Override
				public int read(byte[] buffer, int offset, int length) {
					return in.read(buffer, offset, length);
				}

				@Override
				public boolean isFinished() {
					return in.available() == 0;
				}

				@Override
				public boolean isReady() {
					return true;
				}

				@Override
				public void setReadListener(ReadListener listener) {
					throw new UnsupportedOperationException("Not an asynchronous request");
				}

			};
		}

		@Override
		public BufferedReader getReader() {
			return new BufferedReader(new InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
		}

		@Override
		public int getContentLength() {
			return this.body.length;
		}

		@Override
		public long getContentLengthLong() {
			return this.body.length;
		}

	}

}
