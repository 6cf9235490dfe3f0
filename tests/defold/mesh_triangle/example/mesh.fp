#version 140

in mediump vec4 var_color;
out vec4 out_fragColor;

void main()
{
	out_fragColor = var_color;
}