package dynamolocal

import (
	"io"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// socketClient is the HTTP client of the clients [Server.NewClient] makes
// for a server over a socket (DynamoDB Local, an endpoint): the SDK's
// default client, with each request body stripped of its WriteTo method.
//
// Why: the SDK (smithy-go) sends a request body that implements
// io.WriterTo and answers io.EOF from WriteTo once it is closed, and it
// closes the body as soon as the response's headers are in. net/http's
// transport writes the body to the socket, the server answers, and only
// then does the transport read the body once more to check it holds no
// more than its Content-Length; io.Copy takes that io.EOF from WriteTo for
// a failure, so the transport closes the connection while the caller is
// still reading the answer: "deserialization failed ... use of closed
// network connection" on a 200, which the SDK retries. The faster the
// server answers, the likelier the race: the embedded engine on a loopback
// port lost about one Query answer in a hundred to it. Through Read alone
// the closed body answers 0, io.EOF, which io.Copy takes for the end, and
// the connection survives. The server cannot prevent it: the request has
// reached it whole before it answers.
type socketClient struct{ base dynamodb.HTTPClient }

func newSocketClient() socketClient { return socketClient{base: awshttp.NewBuildableClient()} }

// Do implements dynamodb.HTTPClient.
func (c socketClient) Do(req *http.Request) (*http.Response, error) {
	if _, ok := req.Body.(io.WriterTo); ok {
		r := *req // the SDK closes req.Body itself: only the copy is changed
		r.Body = readCloser{req.Body}
		req = &r
	}
	return c.base.Do(req)
}

// readCloser hides every method of a request body but Read and Close.
type readCloser struct{ io.ReadCloser }
