// Command menagerie-go-bot is an example Menagerie bot in Go.
//
// It is a gRPC client of menagerie.v1.GameService whose code is generated from the
// project's own proto files (make generate). It joins one seat with its credential,
// answers every Turn and exits after GameOver.
//
// It reads the typed observation of Apocalypse au Zoo de Carson City and captures the
// most valuable card in reach (see carson.go); every other game is played with a random
// legal action, by index.
//
// Usage: menagerie-go-bot --address HOST:PORT --credential SECRET [--seed N]
// (or MENAGERIE_ADDRESS / MENAGERIE_CREDENTIAL in the environment).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"time"

	"google.golang.org/grpc"

	pb "menagerie/v1"
)

func main() {
	address := flag.String("address", os.Getenv("MENAGERIE_ADDRESS"), "game server HOST:PORT")
	credential := flag.String("credential", os.Getenv("MENAGERIE_CREDENTIAL"), "seat credential")
	seed := flag.Int64("seed", time.Now().UnixNano(), "seed of the random choices")
	flag.Parse()
	if *address == "" || *credential == "" {
		fmt.Fprintln(os.Stderr, "error: --address and --credential (or MENAGERIE_ADDRESS/_CREDENTIAL) are needed")
		os.Exit(2)
	}
	if err := play(*address, *credential, rand.New(rand.NewSource(*seed))); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func play(address, credential string, rng *rand.Rand) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	conn, err := grpc.DialContext(ctx, address, grpc.WithInsecure(), grpc.WithBlock())
	cancel()
	if err != nil {
		return fmt.Errorf("cannot connect to %s: %v", address, err)
	}
	defer conn.Close()
	stream, err := pb.NewGameServiceClient(conn).Play(context.Background())
	if err != nil {
		return err
	}
	join := &pb.PlayRequest{Message: &pb.PlayRequest_Join{Join: &pb.Join{
		Credential: credential, BotName: "go-example", BotVersion: "1",
	}}}
	if err := stream.Send(join); err != nil {
		return err
	}
	game := ""
	seat := int32(-1)
	for {
		response, err := stream.Recv()
		if err == io.EOF {
			return fmt.Errorf("the server ended the stream without GameOver")
		}
		if err != nil {
			return err
		}
		switch m := response.Message.(type) {
		case *pb.PlayResponse_MatchStart:
			game, seat = m.MatchStart.Game, m.MatchStart.Seat
			fmt.Fprintf(os.Stderr, "go bot: seat %d of %s (%s)\n", seat, game, m.MatchStart.MatchId)
		case *pb.PlayResponse_Turn:
			index := choose(game, m.Turn, rng)
			move := &pb.PlayRequest{Message: &pb.PlayRequest_Move{Move: &pb.Move{
				Sequence: m.Turn.Sequence,
				Choice:   &pb.Move_Index{Index: uint32(index)},
			}}}
			if err := stream.Send(move); err != nil {
				return err
			}
		case *pb.PlayResponse_Error:
			fmt.Fprintf(os.Stderr, "server: %s: %s\n", m.Error.Code, m.Error.Message)
		case *pb.PlayResponse_GameOver:
			over := m.GameOver
			fmt.Fprintf(os.Stderr, "go bot: game over (%s), scores %v\n", over.Status, over.Scores)
			return stream.CloseSend()
		}
	}
}

// choose returns the index of a legal action of the turn.
func choose(game string, turn *pb.Turn, rng *rand.Rand) int {
	legal := turn.LegalActions
	if game == "carson_city_zoo" {
		if obs := turn.GetObservation().GetCarsonCityZoo(); obs != nil {
			if i := chooseCarson(obs, legal, rng); i >= 0 && i < len(legal) {
				return i
			}
		}
	}
	return rng.Intn(len(legal))
}
