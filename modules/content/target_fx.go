package content

import "go.uber.org/fx"

// AsTarget annotates a constructor whose result implements Target so that it joins the
// "contentTargets" value group the suggestions module reads: fx.Provide(content.AsTarget(NewTarget)).
func AsTarget(constructor any) any {
	return fx.Annotate(constructor, fx.As(new(Target)), fx.ResultTags(`group:"contentTargets"`))
}
